import * as z from 'zod/mini';
import { coercedNumber } from './zod.ts';

/**
 * Runtime configuration, parsed once at cold start. Every variable the functions read is declared
 * here, so a missing or malformed one fails the first invocation loudly instead of half-working.
 */
const ConfigSchema = z.object({
  TABLE_NAME: z._default(z.string().check(z.minLength(1)), 'listings-leads'),
  /** Set only locally (DynamoDB Local); in Lambda the regional endpoint of AWS_REGION is used. */
  DYNAMODB_ENDPOINT: z.optional(z.url()),
  AWS_REGION: z._default(z.string().check(z.minLength(1)), 'us-east-1'),
  /**
   * HMAC key that signs pagination cursors so that an edited cursor is refused. Set by the local
   * stack and the tests; in Lambda the key is read from Secrets Manager (CURSOR_SECRET_ARN). No
   * default: a public key would let anyone forge cursors.
   */
  CURSOR_SECRET: z.optional(z.string().check(z.minLength(16))),
  /** The Secrets Manager secret holding the cursor key (set by CDK); read once per container. */
  CURSOR_SECRET_ARN: z.optional(z.string().check(z.startsWith('arn:'))),
  /** How long a verified API key (and its Tenant's state) is trusted before it is looked up again. */
  AUTH_CACHE_TTL_SECONDS: z._default(coercedNumber().check(z.int(), z.gte(0), z.lte(60)), 60),
  /** Default budgets; a Tenant's own `rate_limit_per_minute` replaces the tenant budget. */
  RATE_LIMIT_KEY_PER_MINUTE: z._default(coercedNumber().check(z.int(), z.positive()), 600),
  RATE_LIMIT_TENANT_PER_MINUTE: z._default(coercedNumber().check(z.int(), z.positive()), 1200),
  /** Site budgets (docs/site-api.md): per visitor IP, per Tenant over all its publishable keys, inquiries per key and IP. */
  SITE_RATE_LIMIT_IP_PER_MINUTE: z._default(coercedNumber().check(z.int(), z.positive()), 120),
  /**
   * Sized for the reference portal (5 million page views a day): about 2,950 uncached site GETs a
   * minute on average, 2.5 times that at the day's peak, and half as much again of headroom
   * (docs/configuration.md says how to size it for a Tenant).
   */
  SITE_RATE_LIMIT_TENANT_PER_MINUTE: z._default(coercedNumber().check(z.int(), z.positive()), 12_000),
  /**
   * Per IPv6 /48 over all its visitors (/64s), judged before the Tenant's: a household or office
   * stepping through the /64s of its /56 spends at most this much of the site budget.
   */
  SITE_RATE_LIMIT_NETWORK_PER_MINUTE: z._default(coercedNumber().check(z.int(), z.positive()), 600),
  SITE_RATE_LIMIT_INQUIRY_PER_MINUTE: z._default(coercedNumber().check(z.int(), z.positive()), 5),
  /**
   * The secret CloudFront sends to the API in `X-Origin-Verify`: site routes refuse a request
   * without it, so nobody reaches them around the distribution (and its viewer address). Set from
   * Secrets Manager in Lambda (SITE_ORIGIN_SECRET_ARN); unset locally, where the socket address counts.
   */
  SITE_ORIGIN_SECRET: z.optional(z.string().check(z.minLength(16))),
  SITE_ORIGIN_SECRET_ARN: z.optional(z.string().check(z.startsWith('arn:'))),
  /**
   * Cloudflare Turnstile secret for the site's inquiry form (or its Secrets Manager ARN). Unset (the
   * local stack), only Cloudflare's documented dummy token passes.
   */
  TURNSTILE_SECRET: z.optional(z.string().check(z.minLength(1))),
  TURNSTILE_SECRET_ARN: z.optional(z.string().check(z.startsWith('arn:'))),
  /** SQS queue of AI work (enrichment, scoring); required in Lambda by the functions that queue. */
  AI_QUEUE_URL: z.optional(z.url()),
  /** SQS queue of photo imports; required in Lambda by the functions that queue an import. */
  IMAGE_IMPORT_QUEUE_URL: z.optional(z.url()),
  /** The photo bucket's name; required in Lambda by the functions that store or sign photos. */
  PHOTO_BUCKET: z.optional(z.string().check(z.minLength(1))),
  /**
   * The bucket that holds the Tenants' catalogue snapshots under `catalogue/` (the photo bucket, a
   * private prefix no distribution serves); required in Lambda by the functions that read or write one.
   */
  CATALOGUE_BUCKET: z.optional(z.string().check(z.minLength(1))),
  /**
   * The function's memory (Lambda sets it): the in-memory catalogues may hold a share of it
   * (services/site-catalogue.ts). Unset locally, where 1024 MB is assumed.
   */
  AWS_LAMBDA_FUNCTION_MEMORY_SIZE: z._default(coercedNumber().check(z.gt(0)), 1024),
  /** Where photos are served (the CDN's https origin; the local S3 locally), keys appended. */
  PHOTO_BASE_URL: z.optional(z.url()),
  /**
   * The photo distribution's id (CloudFront); required in Lambda by the function that invalidates a
   * deleted photo's files there (the photo import worker).
   */
  PHOTO_DISTRIBUTION_ID: z.optional(z.string().check(z.regex(/^[A-Z0-9]+$/))),
  /** Bedrock model (or inference profile) id for AI work; required in Lambda by the AI worker. */
  AI_MODEL_ID: z.optional(z.string().check(z.minLength(1))),
  /** USD per 1,000 tokens used to charge a Tenant's AI spend (input, output). */
  AI_PRICE_INPUT_PER_1K_USD: z._default(coercedNumber().check(z.gte(0)), 0.003),
  AI_PRICE_OUTPUT_PER_1K_USD: z._default(coercedNumber().check(z.gte(0)), 0.015),
  /** Verified SES sender; required in Lambda by the functions that email. */
  EMAIL_FROM: z.optional(z.email()),
  /** Multiplies the webhook retry ladder's waits (local stack: 0.001 turns a minute into 60 ms). */
  RETRY_DELAY_SCALE: z._default(coercedNumber().check(z.gt(0)), 1),
  // How old an event must be before GET /v1/events lists it (services/events.ts, listEvents).
  EVENTS_SETTLE_SECONDS: z._default(coercedNumber().check(z.gte(0), z.lte(60)), 5),
  LOG_LEVEL: z._default(z.enum(['DEBUG', 'INFO', 'WARN', 'ERROR', 'SILENT']), 'INFO'),
});

export type Config = z.infer<typeof ConfigSchema>;

let cached: Config | undefined;

/** The parsed configuration; tests may call `resetConfig()` after changing `process.env`. */
export function config(): Config {
  cached ??= ConfigSchema.parse(process.env);
  return cached;
}

export function resetConfig(): void {
  cached = undefined;
}
