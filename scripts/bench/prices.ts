/**
 * The price list the cost section multiplies measured units by: list prices as published, read on
 * the date below, us-east-1 for the regional services and United States/Europe for CloudFront (both
 * distributions are PriceClass_100). The bench has no internet: each figure is the pricing page
 * named in its `source`. Change a price here and rerun `npm run bench -- --only cost --readme`.
 *
 * AWS bills data in GB of 2^30 bytes, and CloudFront's tiers in TB of 1,024 such GB.
 */
export interface Price {
  usd: number;
  unit: string;
  source: string;
}

/** A volume tier: every GB up to `upToGb` (cumulative, within the month) at `usdPerGb`. */
export interface Tier {
  upToGb: number;
  usdPerGb: number;
}

export const PRICES_READ = 'list prices as published, read 2026-11';

const TB = 1024;

const DYNAMODB = 'Amazon DynamoDB on-demand pricing, us-east-1';
const LAMBDA = 'AWS Lambda pricing, us-east-1';
const CLOUDFRONT = 'Amazon CloudFront pricing (pay as you go)';
const price = (usd: number, unit: string, source: string): Price => ({ usd, unit, source });

export const PRICES = {
  dynamoReadRequestUnit: price(0.125 / 1e6, 'read request unit', DYNAMODB),
  dynamoWriteRequestUnit: price(0.625 / 1e6, 'write request unit', DYNAMODB),
  dynamoStorageGbMonth: price(0.25, 'GB-month', DYNAMODB),
  /** The stack's functions are arm64 (lib/constructs/service-function.ts). */
  lambdaArmGbSecond: price(0.0000133334, 'GB-second (arm64)', LAMBDA),
  lambdaRequest: price(0.2 / 1e6, 'request', LAMBDA),
  /** The API is an API Gateway HTTP API (lib/stacks/api-stack.ts). */
  httpApiRequest: price(1.0 / 1e6, 'request', 'Amazon API Gateway pricing (HTTP APIs), us-east-1'),
  /** Both distributions redirect HTTP to HTTPS (lib/constructs/*-distribution.ts): a page's requests are HTTPS. */
  cloudFrontHttpsRequest: price(0.01 / 1e4, 'HTTPS request, United States and Europe', CLOUDFRONT),
  cloudFrontDataOut: {
    tiers: [
      { upToGb: 10 * TB, usdPerGb: 0.085 },
      { upToGb: 50 * TB, usdPerGb: 0.08 },
      { upToGb: 150 * TB, usdPerGb: 0.06 },
      { upToGb: 500 * TB, usdPerGb: 0.04 },
      { upToGb: 1024 * TB, usdPerGb: 0.03 },
      { upToGb: 5 * 1024 * TB, usdPerGb: 0.025 },
      { upToGb: Number.POSITIVE_INFINITY, usdPerGb: 0.02 },
    ] as readonly Tier[],
    unit: 'GB out to the internet, United States and Europe, tiered by the month’s volume',
    source: CLOUDFRONT,
  },
  /** Per account and month, whatever the distributions: the first GB and requests of the month. */
  cloudFrontFreeTier: {
    gbOut: 1 * TB,
    requests: 10_000_000,
    unit: 'a month, per AWS account, always free',
    source: 'Amazon CloudFront pricing (free tier)',
  },
  s3Get: price(0.0004 / 1e3, 'GET request', 'Amazon S3 pricing (Standard), us-east-1'),
  s3StorageGbMonth: price(0.023, 'GB-month', 'Amazon S3 pricing (Standard), us-east-1'),
  sqsRequest: price(0.4 / 1e6, 'request', 'Amazon SQS pricing (standard queues), us-east-1'),
  sesEmail: price(0.1 / 1e3, 'email', 'Amazon SES pricing, us-east-1'),
  logsIngestGb: price(0.5, 'GB ingested', 'Amazon CloudWatch pricing (Logs), us-east-1'),
  /** The site distribution's web ACL (lib/constructs/edge-firewall.ts); the photo distribution has none. */
  wafWebAclMonth: price(5, 'web ACL-month', 'AWS WAF pricing'),
  wafRuleMonth: price(1, 'rule-month', 'AWS WAF pricing'),
  wafRequest: price(0.6 / 1e6, 'request inspected', 'AWS WAF pricing'),
} as const;

export type Prices = typeof PRICES;

/**
 * USD for `gb` of a month's volume at tiered prices, the first `freeGb` of the month free: the free
 * GB are the month's first, so they come off the lowest tier.
 */
export function tieredUsd(gb: number, tiers: readonly Tier[], freeGb = 0): number {
  let usd = 0;
  let from = 0;
  for (const { upToGb, usdPerGb } of tiers) {
    const billed = Math.min(gb, upToGb) - Math.max(from, freeGb);
    if (billed > 0) usd += billed * usdPerGb;
    if (gb <= upToGb) break;
    from = upToGb;
  }
  return usd;
}
