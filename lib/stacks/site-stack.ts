import { CfnOutput, Stack, type StackProps } from 'aws-cdk-lib';
import type { ISecret } from 'aws-cdk-lib/aws-secretsmanager';
import type { Construct } from 'constructs';
import { SiteDistribution } from '../constructs/site-distribution.ts';

export interface SiteStackProps extends StackProps {
  /** The HTTP API's endpoint (api stack). */
  readonly apiEndpoint: string;
  /** The origin secret (data stack), also bound to the site functions. */
  readonly originSecret: ISecret;
  /**
   * The origin secret's version CloudFront sends (deploy parameter `originSecretVersion`).
   * @default - the current version
   */
  readonly originSecretVersionId?: string;
  /** The photo bucket's name (data stack): `/media/*` serves the gallery from it. */
  readonly photoBucketName?: string;
  /**
   * The ARN of the CloudFront-scope web ACL in front of the distribution (edge-firewall-stack.ts).
   * @default - none: no web ACL (deploy parameter `waf=off`)
   */
  readonly webAclArn?: string;
}

/** The edge: CloudFront in front of the site API and the gallery photos (lib/constructs/site-distribution.ts). */
export class SiteStack extends Stack {
  readonly site: SiteDistribution;

  constructor(scope: Construct, id: string, props: SiteStackProps) {
    super(scope, id, props);
    this.site = new SiteDistribution(this, 'Site', {
      apiEndpoint: props.apiEndpoint,
      originSecret: props.originSecret,
      ...(props.originSecretVersionId ? { originSecretVersionId: props.originSecretVersionId } : {}),
      ...(props.photoBucketName ? { photoBucketName: props.photoBucketName } : {}),
      ...(props.webAclArn ? { webAclId: props.webAclArn } : {}),
    });
    new CfnOutput(this, 'SiteUrl', {
      value: `https://${this.site.distribution.distributionDomainName}`,
      description:
        'Base URL for websites: the site API (/v1/site/…, /v1/theme) and gallery photos (/media/…)',
    });
  }
}
