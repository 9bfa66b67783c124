/**
 * The price list the cost section multiplies measured units by, in USD a unit (each named for its
 * unit): list prices as published, read on the date below, us-east-1 and, for CloudFront (both
 * distributions PriceClass_100), United States/Europe; each group names its pricing page. Change a
 * price here and rerun `npm run bench -- --only cost --readme`. A GB is 2^30 bytes, a TB 1,024 GB.
 */

/** A volume tier: every GB up to `upToGb` (cumulative, within the month) at `usdPerGb`. */
export interface Tier {
  upToGb: number;
  usdPerGb: number;
}

export const PRICES_READ = 'list prices as published, read 2026-11';

const TB = 1024;

export const PRICES = {
  // Amazon DynamoDB on-demand pricing, us-east-1.
  dynamoReadRequestUnit: 0.125 / 1e6,
  dynamoWriteRequestUnit: 0.625 / 1e6,
  dynamoStorageGbMonth: 0.25,
  // AWS Lambda pricing, us-east-1; the stack's functions are arm64 (lib/constructs/service-function.ts).
  lambdaArmGbSecond: 0.0000133334,
  lambdaRequest: 0.2 / 1e6,
  // Amazon API Gateway pricing (HTTP APIs), us-east-1: the API is an HTTP API (lib/stacks/api-stack.ts).
  httpApiRequest: 1.0 / 1e6,
  // Amazon CloudFront pricing (pay as you go), United States and Europe. Both distributions redirect
  // HTTP to HTTPS (lib/constructs/*-distribution.ts): a page's requests are HTTPS. Data out to the
  // internet is tiered by the month's volume.
  cloudFrontHttpsRequest: 0.01 / 1e4,
  cloudFrontDataOut: [
    { upToGb: 10 * TB, usdPerGb: 0.085 },
    { upToGb: 50 * TB, usdPerGb: 0.08 },
    { upToGb: 150 * TB, usdPerGb: 0.06 },
    { upToGb: 500 * TB, usdPerGb: 0.04 },
    { upToGb: 1024 * TB, usdPerGb: 0.03 },
    { upToGb: 5 * 1024 * TB, usdPerGb: 0.025 },
    { upToGb: Number.POSITIVE_INFINITY, usdPerGb: 0.02 },
  ] as readonly Tier[],
  // Amazon CloudFront pricing (free tier): per AWS account and month, whatever the distributions,
  // always free: the month's first GB out and requests.
  cloudFrontFreeGbOut: 1 * TB,
  cloudFrontFreeRequests: 10_000_000,
  // Amazon S3 pricing (Standard), us-east-1.
  s3Get: 0.0004 / 1e3,
  s3StorageGbMonth: 0.023,
  // Amazon SQS pricing (standard queues), Amazon SES pricing, Amazon CloudWatch pricing (Logs), us-east-1.
  sqsRequest: 0.4 / 1e6,
  sesEmail: 0.1 / 1e3,
  logsIngestGb: 0.5,
  // AWS WAF pricing: the site distribution's web ACL (lib/constructs/edge-firewall.ts); the photo
  // distribution has none.
  wafWebAclMonth: 5,
  wafRuleMonth: 1,
  wafRequest: 0.6 / 1e6,
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
