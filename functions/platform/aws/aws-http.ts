import type { IncomingMessage } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { type AwsCredentials, signRequest } from './sigv4.ts';

/** Where credentials come from; called before every attempt (providers cache and refresh). */
export type CredentialSource = () => Promise<AwsCredentials>;

export interface AwsCall {
  /** Signing name: `dynamodb`, `sqs`, `ses`. */
  service: string;
  region: string;
  /** Origin of the service, e.g. `https://dynamodb.eu-west-1.amazonaws.com` or DynamoDB Local's. */
  endpoint: string;
  /** Request path; `/` for the JSON-RPC APIs (DynamoDB, SQS). */
  path?: string;
  /** Content type, and `x-amz-target` for the JSON-RPC APIs. */
  headers: Record<string, string>;
  body: string;
  credentials: CredentialSource;
  signal?: AbortSignal;
  /** How long a silent socket is waited on; defaults to ATTEMPT_TIMEOUT_MS. */
  attemptTimeoutMs?: number;
}

/**
 * A refusal from an AWS service, shaped like the SDK's errors so that code reading `name`,
 * `$metadata` or the body's fields (`CancellationReasons`, `Item`) works with either.
 */
export class AwsServiceError extends Error {
  readonly $metadata: { httpStatusCode: number; requestId?: string; attempts: number };
  /** Set by the constructor from the name and status; also when a clock skew was just corrected. */
  retryable: boolean;
  /** Throttling backs off longer than other retryable errors. */
  readonly throttled: boolean;
  /** The error body's other fields, e.g. a cancelled transaction's `CancellationReasons`. */
  [field: string]: unknown;

  constructor(
    name: string,
    message: string,
    metadata: { httpStatusCode: number; requestId?: string; attempts: number },
    fields: Record<string, unknown> = {},
  ) {
    super(message);
    Object.assign(this, fields);
    this.name = name;
    this.$metadata = metadata;
    this.throttled = metadata.httpStatusCode === 429 || THROTTLING_ERRORS.has(name);
    this.retryable =
      this.throttled || TRANSIENT_STATUSES.has(metadata.httpStatusCode) || TRANSIENT_ERRORS.has(name);
  }
}

// What the SDK's standard retry strategy retries (@smithy/service-error-classification).
const THROTTLING_ERRORS = new Set([
  'BandwidthLimitExceeded',
  'EC2ThrottledException',
  'LimitExceededException',
  'PriorRequestNotComplete',
  'ProvisionedThroughputExceededException',
  'RequestLimitExceeded',
  'RequestThrottled',
  'RequestThrottledException',
  'SlowDown',
  'ThrottledException',
  'Throttling',
  'ThrottlingException',
  'TooManyRequestsException',
  'TransactionInProgressException',
]);
const TRANSIENT_ERRORS = new Set(['RequestTimeout', 'RequestTimeoutException', 'TimeoutError']);
const TRANSIENT_STATUSES = new Set([500, 502, 503, 504]);
const RETRYABLE_NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EPIPE',
  'ETIMEDOUT',
]);

/**
 * Three attempts (the SDK's default), exponential backoff with full jitter: from 50 ms for transient
 * errors and from 500 ms for throttling, which needs the table's capacity to catch up.
 */
const MAX_ATTEMPTS = 3;
const BACKOFF_BASE_MS = 50;
const THROTTLING_BACKOFF_BASE_MS = 500;
/**
 * A socket silent this long is abandoned and the call retried: a connection kept alive across a
 * Lambda freeze can be dead without an error. DynamoDB answers in milliseconds, and three attempts
 * with their waits stay inside an API function's 10-second timeout.
 */
export const ATTEMPT_TIMEOUT_MS = 2_500;

// Connections are reused across requests and invocations: a new TLS handshake costs more than most
// DynamoDB calls.
// node:http and node:https are taken with process.getBuiltinModule, not `import`: an ES-module import
// of node:http evaluates every lazy export, loading Node's fetch implementation (undici) and zlib,
// 15-30 ms of cold start for nothing (measured on Node 24).
const http = process.getBuiltinModule('node:http');
const https = process.getBuiltinModule('node:https');
const httpsAgent = new https.Agent({ keepAlive: true, maxSockets: 50 });
const httpAgent = new http.Agent({ keepAlive: true, maxSockets: 50 });

interface RawResponse {
  status: number;
  requestId?: string;
  errorType?: string;
  /** The service's clock (the `Date` header), to correct a skewed local clock. */
  serverDate?: string;
  text: string;
}

function send(
  url: URL,
  headers: Record<string, string>,
  body: string,
  timeoutMs: number,
  signal?: AbortSignal,
): Promise<RawResponse> {
  const secure = url.protocol === 'https:';
  return new Promise((resolve, reject) => {
    const request = (secure ? https.request : http.request)(
      {
        protocol: url.protocol,
        hostname: url.hostname,
        port: url.port || undefined,
        path: url.pathname,
        method: 'POST',
        headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) },
        agent: secure ? httpsAgent : httpAgent,
        timeout: timeoutMs,
        ...(signal ? { signal } : {}),
      },
      (response: IncomingMessage) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('error', reject);
        response.on('end', () => {
          const errorType = response.headers['x-amzn-errortype'];
          const requestId = response.headers['x-amzn-requestid'] ?? response.headers['x-amz-request-id'];
          const serverDate = response.headers.date;
          resolve({
            status: response.statusCode ?? 0,
            text: Buffer.concat(chunks).toString('utf8'),
            ...(typeof requestId === 'string' ? { requestId } : {}),
            ...(typeof errorType === 'string' ? { errorType } : {}),
            ...(serverDate ? { serverDate } : {}),
          });
        });
      },
    );
    request.on('timeout', () =>
      request.destroy(Object.assign(new Error('AWS request timed out'), { code: 'ETIMEDOUT' })),
    );
    request.on('error', reject);
    request.end(body);
  });
}

/** An error body: JSON when the service sends one, anything else (a proxy's HTML page) is ignored. */
function parseErrorBody(text: string): Record<string, unknown> {
  try {
    const parsed: unknown = JSON.parse(text);
    return parsed && typeof parsed === 'object' ? (parsed as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

/**
 * A success body must be a JSON object (or empty): read leniently, a truncated answer would pass for
 * "no item" or an empty page.
 */
function parseAnswer(text: string): Record<string, unknown> {
  if (!text) return {};
  const parsed: unknown = JSON.parse(text);
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new Error(`AWS answered with a body that is not a JSON object: ${text.slice(0, 100)}`);
  }
  return parsed as Record<string, unknown>;
}

/** `com.amazonaws.dynamodb.v20120810#ConditionalCheckFailedException` → `ConditionalCheckFailedException`. */
function errorName(response: RawResponse, body: Record<string, unknown>): string {
  // The order the SDK reads them in: the header, then the body's `code`, then `__type`.
  const type = String(response.errorType ?? body.code ?? body.__type ?? `Http${response.status}Error`);
  return type.split('#').pop()?.split(':')[0] ?? type;
}

function toServiceError(response: RawResponse, attempts: number): AwsServiceError {
  const body = parseErrorBody(response.text);
  const { __type, message, Message, ...fields } = body;
  const name = errorName(response, body);
  const text = typeof message === 'string' ? message : typeof Message === 'string' ? Message : name;
  return new AwsServiceError(
    name,
    text,
    {
      httpStatusCode: response.status,
      attempts,
      ...(response.requestId ? { requestId: response.requestId } : {}),
    },
    fields,
  );
}

function isRetryableNetworkError(error: unknown): boolean {
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' && RETRYABLE_NETWORK_CODES.has(code);
}

/**
 * AWS refuses a signature dated more than 5 minutes from its clock. Like the SDK, when it does, take
 * the offset from its `Date` header and sign with the corrected time from then on (a laptop running
 * the admin CLI may be minutes off; Lambda's clock is not).
 */
let clockOffsetMs = 0;
const SKEW_ERRORS = new Set([
  'InvalidSignatureException',
  'SignatureDoesNotMatch',
  'RequestExpired',
  'RequestTimeTooSkewed',
]);
const MAX_SKEW_MS = 4 * 60_000;

/** True when the refusal was for a skewed clock and the offset has just been corrected (retry). */
function correctedClockSkew(response: RawResponse, error: AwsServiceError): boolean {
  if (!SKEW_ERRORS.has(error.name) || !response.serverDate) return false;
  const serverMs = Date.parse(response.serverDate);
  if (Number.isNaN(serverMs)) return false;
  const offset = serverMs - Date.now();
  if (Math.abs(offset - clockOffsetMs) < MAX_SKEW_MS) return false;
  clockOffsetMs = offset;
  return true;
}

/** One attempt: sign with fresh credentials, send, and turn a refusal into AwsServiceError. */
async function attemptOnce(call: AwsCall, url: URL, attempt: number): Promise<Record<string, unknown>> {
  const headers = signRequest(
    { method: 'POST', host: url.host, path: url.pathname, headers: call.headers, body: call.body },
    await call.credentials(),
    { service: call.service, region: call.region, now: new Date(Date.now() + clockOffsetMs) },
  );
  const response = await send(
    url,
    headers,
    call.body,
    call.attemptTimeoutMs ?? ATTEMPT_TIMEOUT_MS,
    call.signal,
  );
  if (response.status >= 200 && response.status < 300) return parseAnswer(response.text);
  const error = toServiceError(response, attempt);
  if (correctedClockSkew(response, error)) error.retryable = true;
  throw error;
}

function isRetryable(error: unknown, signal: AbortSignal | undefined): boolean {
  if (error instanceof AwsServiceError) return error.retryable;
  return !signal?.aborted && isRetryableNetworkError(error);
}

/** Full-jitter exponential wait before attempt `attempt + 1`; an abort ends it early. */
function backoff(attempt: number, error: unknown, signal: AbortSignal | undefined): Promise<void> {
  const base =
    error instanceof AwsServiceError && error.throttled ? THROTTLING_BACKOFF_BASE_MS : BACKOFF_BASE_MS;
  return sleep(Math.random() * base * 2 ** attempt, undefined, signal ? { signal } : {});
}

/**
 * One signed JSON request to an AWS service, retried on throttling, 5xx and dropped connections.
 * Returns the parsed JSON answer; a refusal throws AwsServiceError.
 */
export async function callAws(call: AwsCall): Promise<Record<string, unknown>> {
  const url = new URL(call.path ?? '/', call.endpoint);
  for (let attempt = 1; ; attempt++) {
    try {
      return await attemptOnce(call, url, attempt);
    } catch (error) {
      if (attempt >= MAX_ATTEMPTS || !isRetryable(error, call.signal)) throw error;
      await backoff(attempt, error, call.signal);
    }
  }
}

/**
 * The default credential chain, loaded on first use. In Lambda bundles the chain is replaced by an
 * environment-only provider (lib/bundling.ts); locally and in the admin CLI the SDK's full chain
 * (profiles, SSO, ...) is used.
 */
export function defaultCredentials(): CredentialSource {
  let provider: Promise<CredentialSource> | undefined;
  return async () => {
    provider ??= import('@aws-sdk/credential-provider-node').then(
      (m) => m.defaultProvider() as CredentialSource,
    );
    return (await provider)();
  };
}

/** The fixed pair DynamoDB Local and other local stand-ins accept. */
export const localCredentials: CredentialSource = async () => ({
  accessKeyId: 'local',
  secretAccessKey: 'local',
});
