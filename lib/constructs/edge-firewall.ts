import { CfnWebACL } from 'aws-cdk-lib/aws-wafv2';
import { Construct } from 'constructs';
import { PUBLISHABLE_KEY_PREFIX } from '../../functions/domain/api-key-secret.ts';

/** The window the rate-based rules count requests in. */
export const EDGE_RATE_WINDOW_SECONDS = 60;

/**
 * Requests to the API paths (`/v1/…`) one client address (one IPv4 or IPv6 address: AWS WAF counts no
 * IPv6 prefix) may send through the site distribution per window before the edge blocks it for the
 * rest of the window: 10 a second sustained, well above a
 * page's few calls (most of them cache hits) and the 120 a minute the visitor budget admits, so it
 * only stops floods, before any Lambda runs, and leaves the budgets' finer 429s to the API. An office
 * behind one address shares it.
 */
export const EDGE_RATE_LIMIT_PER_IP = 600;

/**
 * The same without a publishable key in `key` (a site route answers 404 to those): nothing a page
 * sends, so a much lower limit stops key-guessing and junk floods early.
 */
export const EDGE_RATE_LIMIT_PER_IP_WITHOUT_KEY = 60;

export interface EdgeFirewallProps {
  /**
   * The prefix of the metric names (CloudWatch `AWS/WAFV2`), unique per stage.
   * @default 'ListingsLeadsSite'
   */
  readonly metricPrefix?: string;
}

/**
 * A CloudFront-scope AWS WAF web ACL for the site distribution: per client address, a rate limit on
 * the API paths, and a lower one on API requests without a publishable key. Everything else is
 * allowed (the API's own admission and budgets decide). CloudFront-scope web ACLs exist only in
 * us-east-1: the stack holding this construct must be deployed there (lib/stacks/edge-firewall-stack.ts).
 *
 * AWS WAF cannot be associated with an API Gateway HTTP API, so the integrators' API is limited by its
 * stage's per-route throttling instead (lib/stacks/api-stack.ts).
 *
 * IPv6: a rate-based rule aggregates on a whole address (`IP`, `FORWARDED_IP`), or on custom keys
 * (an ASN, a header, a cookie, a query argument, a label namespace, a TLS fingerprint…), never on an
 * address prefix, so these rules count each IPv6 address alone: a client stepping through the
 * addresses of its /64 or its /56 is not slowed here. Aggregating by ASN instead would lump a whole
 * provider's customers together, every Tenant's visitors included. The prefix budgets are the API's:
 * `ip-minute` per /64 and `network-minute` per /48 (functions/domain/visitor.ts,
 * functions/pipeline/middleware/site-rate-limit.ts), refused from memory once spent, before the Tenant's
 * `site-minute`.
 */
export class EdgeFirewall extends Construct {
  readonly webAcl: CfnWebACL;

  constructor(scope: Construct, id: string, props: EdgeFirewallProps = {}) {
    super(scope, id);
    const prefix = props.metricPrefix ?? 'ListingsLeadsSite';
    const visibility = (name: string): CfnWebACL.VisibilityConfigProperty => ({
      cloudWatchMetricsEnabled: true,
      metricName: `${prefix}${name}`,
      sampledRequestsEnabled: true,
    });
    const apiPaths: CfnWebACL.StatementProperty = {
      byteMatchStatement: {
        fieldToMatch: { uriPath: {} },
        positionalConstraint: 'STARTS_WITH',
        searchString: '/v1/',
        textTransformations: [{ priority: 0, type: 'NONE' }],
      },
    };
    const withPublishableKey: CfnWebACL.StatementProperty = {
      byteMatchStatement: {
        fieldToMatch: { singleQueryArgument: { Name: 'key' } },
        positionalConstraint: 'STARTS_WITH',
        searchString: PUBLISHABLE_KEY_PREFIX,
        textTransformations: [{ priority: 0, type: 'NONE' }],
      },
    };
    const perIp = (limit: number, scopeDown: CfnWebACL.StatementProperty): CfnWebACL.StatementProperty => ({
      rateBasedStatement: {
        limit,
        aggregateKeyType: 'IP',
        evaluationWindowSec: EDGE_RATE_WINDOW_SECONDS,
        scopeDownStatement: scopeDown,
      },
    });
    this.webAcl = new CfnWebACL(this, 'WebAcl', {
      scope: 'CLOUDFRONT',
      description: 'Site distribution: per-address rate limits in front of the site API',
      defaultAction: { allow: {} },
      visibilityConfig: visibility('WebAcl'),
      rules: [
        {
          name: 'ApiRequestsWithoutKeyPerIp',
          priority: 0,
          action: { block: {} },
          statement: perIp(EDGE_RATE_LIMIT_PER_IP_WITHOUT_KEY, {
            andStatement: { statements: [apiPaths, { notStatement: { statement: withPublishableKey } }] },
          }),
          visibilityConfig: visibility('ApiRequestsWithoutKeyPerIp'),
        },
        {
          name: 'ApiRequestsPerIp',
          priority: 1,
          action: { block: {} },
          statement: perIp(EDGE_RATE_LIMIT_PER_IP, apiPaths),
          visibilityConfig: visibility('ApiRequestsPerIp'),
        },
      ],
    });
  }
}
