/**
 * The list prices the cost section multiplies measured units by: list prices as published,
 * us-east-1, read 2026-11. The bench has no internet; these are the long-published figures of each
 * pricing page named below. Change a price here and rerun `npm run bench -- --only cost --readme`.
 */
export interface Price {
  usd: number;
  unit: string;
  source: string;
}

export const PRICES_READ = 'list prices as published, us-east-1, read 2026-11';

export const PRICES = {
  dynamoReadRequestUnit: {
    usd: 0.125 / 1e6,
    unit: 'read request unit',
    source: 'Amazon DynamoDB on-demand pricing, us-east-1',
  },
  dynamoWriteRequestUnit: {
    usd: 0.625 / 1e6,
    unit: 'write request unit',
    source: 'Amazon DynamoDB on-demand pricing, us-east-1',
  },
  dynamoStorageGbMonth: {
    usd: 0.25,
    unit: 'GB-month',
    source: 'Amazon DynamoDB on-demand pricing, us-east-1',
  },
  /** The stack's functions are arm64 (lib/constructs/service-function.ts). */
  lambdaArmGbSecond: {
    usd: 0.0000133334,
    unit: 'GB-second (arm64)',
    source: 'AWS Lambda pricing, us-east-1',
  },
  lambdaRequest: { usd: 0.2 / 1e6, unit: 'request', source: 'AWS Lambda pricing, us-east-1' },
  /** The API is an API Gateway HTTP API (lib/stacks/api-stack.ts). */
  httpApiRequest: {
    usd: 1.0 / 1e6,
    unit: 'request',
    source: 'Amazon API Gateway pricing (HTTP APIs), us-east-1',
  },
  cloudFrontGbOut: {
    usd: 0.085,
    unit: 'GB out (first 10 TB, North America/Europe)',
    source: 'Amazon CloudFront pricing',
  },
  cloudFrontHttpsRequest: { usd: 0.0075 / 1e4, unit: 'HTTPS request', source: 'Amazon CloudFront pricing' },
  s3Get: { usd: 0.0004 / 1e3, unit: 'GET request', source: 'Amazon S3 pricing (Standard), us-east-1' },
  s3Put: { usd: 0.005 / 1e3, unit: 'PUT request', source: 'Amazon S3 pricing (Standard), us-east-1' },
  s3StorageGbMonth: { usd: 0.023, unit: 'GB-month', source: 'Amazon S3 pricing (Standard), us-east-1' },
  sqsRequest: { usd: 0.4 / 1e6, unit: 'request', source: 'Amazon SQS pricing (standard queues), us-east-1' },
  sesEmail: { usd: 0.1 / 1e3, unit: 'email', source: 'Amazon SES pricing, us-east-1' },
  logsIngestGb: { usd: 0.5, unit: 'GB ingested', source: 'Amazon CloudWatch pricing (Logs), us-east-1' },
  /** The site distribution's web ACL (lib/constructs/edge-firewall.ts), on by default. */
  wafWebAclMonth: { usd: 5, unit: 'web ACL-month', source: 'AWS WAF pricing' },
  wafRuleMonth: { usd: 1, unit: 'rule-month', source: 'AWS WAF pricing' },
  wafRequest: { usd: 0.6 / 1e6, unit: 'request', source: 'AWS WAF pricing' },
} as const satisfies Record<string, Price>;

export type Prices = { [K in keyof typeof PRICES]: Price };
