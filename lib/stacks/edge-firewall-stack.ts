import { CfnOutput, Stack, type StackProps } from 'aws-cdk-lib';
import type { Construct } from 'constructs';
import { EdgeFirewall } from '../constructs/edge-firewall.ts';

/** The region every CloudFront-scope AWS WAF web ACL lives in, wherever the distribution's other stacks are. */
export const CLOUDFRONT_WAF_REGION = 'us-east-1';

/** The output the site stack reads the web ACL's ARN from (Fn::GetStackOutput across regions). */
export const WEB_ACL_ARN_OUTPUT = 'WebAclArn';

export interface EdgeFirewallStackProps extends Omit<StackProps, 'env'> {
  /**
   * The account; the region is always us-east-1.
   * @default - the account of the CLI's credentials at deploy time
   */
  readonly account?: string;
}

/**
 * The site distribution's web ACL (lib/constructs/edge-firewall.ts), in a stack of its own because
 * CloudFront takes web ACLs from us-east-1 only while the other stacks may be anywhere. The site stack
 * reads its ARN through Fn::GetStackOutput with the region named, which works for stacks in any
 * region, environment-agnostic ones included (CDK's own cross-stack references need an explicit
 * region on both sides). Deploying it needs the account bootstrapped in us-east-1.
 */
export class EdgeFirewallStack extends Stack {
  readonly firewall: EdgeFirewall;

  constructor(scope: Construct, id: string, props: EdgeFirewallStackProps = {}) {
    super(scope, id, {
      ...props,
      env: { region: CLOUDFRONT_WAF_REGION, ...(props.account ? { account: props.account } : {}) },
    });
    this.firewall = new EdgeFirewall(this, 'Firewall', { metricPrefix: id.replace(/[^A-Za-z0-9]/g, '') });
    new CfnOutput(this, WEB_ACL_ARN_OUTPUT, {
      value: this.firewall.webAcl.attrArn,
      description: 'The web ACL of the site distribution (CloudFront scope)',
    });
  }
}
