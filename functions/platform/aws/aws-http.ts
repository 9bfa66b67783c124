import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
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
}

/**
 * A refusal from an AWS service, shaped like the SDK's errors so that code reading `name`,
 * `$metadata` or the body's fields (`CancellationReasons`, `Item`) works with either.
 */
export class AwsServiceError extends Error {
  readonly $metadata: { httpStatusCode: number; requestId?: string; attempts: number };
  readonly retryable: boolean;
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
    this.retryable = metadata.httpStatusCode >= 500 || RETRYABLE_ERRORS.has(name);
  }
}

/** Throttling and transient server errors: what the SDK's standard retry strategy retries. */
const RETRYABLE_ERRORS = new Set([
  'ThrottlingException',
  'Throttling',
  'ThrottledException',
  'RequestThrottledException',
  'TooManyRequestsException',
  'ProvisionedThroughputExceededException',
  'RequestLimitExceeded',
  'TransactionInProgressException',
  'RequestTimeout',
  'RequestTimeoutException',
  'InternalServerError',
  'ServiceUnavailable',
]);
const RETRYABLE_NETWORK_CODES = new Set(['ECONNRESET', 'ECONNREFUSED', 'EPIPE', 'ETIMEDOUT', 'EAI_AGAIN']);

/** Same as the SDK's default: three attempts, exponential backoff with full jitter. */
const MAX_ATTEMPTS = 3;
const BACKOFF_BASE_MS = 50;
/** One attempt may take this long before it is abandoned and retried. */
const ATTEMPT_TIMEOUT_MS = 10_000;

// Connections are reused across requests and invocations: a new TLS handshake costs more than most
// DynamoDB calls.
const httpsAgent = new HttpsAgent({ keepAlive: true, maxSockets: 50 });
const httpAgent = new HttpAgent({ keepAlive: true, maxSockets: 50 });

interface RawResponse {
  status: number;
  requestId?: string;
  errorType?: string;
  text: string;
}

function send(
  url: URL,
  headers: Record<string, string>,
  body: string,
  signal?: AbortSignal,
): Promise<RawResponse> {
  const secure = url.protocol === 'https:';
  return new Promise((resolve, reject) => {
    const request = (secure ? httpsRequest : httpRequest)(
      {
        protocol: url.protocol,
        hostname: url.hostname,
        port: url.port || undefined,
        path: url.pathname,
        method: 'POST',
        headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) },
        agent: secure ? httpsAgent : httpAgent,
        timeout: ATTEMPT_TIMEOUT_MS,
        ...(signal ? { signal } : {}),
      },
      (response: IncomingMessage) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('error', reject);
        response.on('end', () => {
          const errorType = response.headers['x-amzn-errortype'];
          const requestId = response.headers['x-amzn-requestid'] ?? response.headers['x-amz-request-id'];
          resolve({
            status: response.statusCode ?? 0,
            text: Buffer.concat(chunks).toString('utf8'),
            ...(typeof requestId === 'string' ? { requestId } : {}),
            ...(typeof errorType === 'string' ? { errorType } : {}),
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

function parseJson(text: string): Record<string, unknown> {
  if (!text) return {};
  try {
    const parsed: unknown = JSON.parse(text);
    return parsed && typeof parsed === 'object' ? (parsed as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

/** `com.amazonaws.dynamodb.v20120810#ConditionalCheckFailedException` → `ConditionalCheckFailedException`. */
function errorName(response: RawResponse, body: Record<string, unknown>): string {
  const type = String(body.__type ?? body.code ?? response.errorType ?? `Http${response.status}Error`);
  return type.split('#').pop()?.split(':')[0] ?? type;
}

function toServiceError(response: RawResponse, attempts: number): AwsServiceError {
  const body = parseJson(response.text);
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

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const endpoints = new Map<string, URL>();

/** One attempt: sign with fresh credentials, send, and turn a refusal into AwsServiceError. */
async function attemptOnce(call: AwsCall, url: URL, attempt: number): Promise<Record<string, unknown>> {
  const headers = signRequest(
    { method: 'POST', host: url.host, path: url.pathname, headers: call.headers, body: call.body },
    await call.credentials(),
    { service: call.service, region: call.region, now: new Date() },
  );
  const response = await send(url, headers, call.body, call.signal);
  if (response.status >= 200 && response.status < 300) return parseJson(response.text);
  throw toServiceError(response, attempt);
}

function isRetryable(error: unknown, signal: AbortSignal | undefined): boolean {
  if (error instanceof AwsServiceError) return error.retryable;
  return !signal?.aborted && isRetryableNetworkError(error);
}

/**
 * One signed JSON request to an AWS service, retried on throttling, 5xx and dropped connections.
 * Returns the parsed JSON answer; a refusal throws AwsServiceError.
 */
export async function callAws(call: AwsCall): Promise<Record<string, unknown>> {
  const key = `${call.endpoint}${call.path ?? '/'}`;
  let url = endpoints.get(key);
  if (!url) {
    url = new URL(call.path ?? '/', call.endpoint);
    endpoints.set(key, url);
  }
  for (let attempt = 1; ; attempt++) {
    try {
      return await attemptOnce(call, url, attempt);
    } catch (error) {
      if (attempt >= MAX_ATTEMPTS || !isRetryable(error, call.signal)) throw error;
    }
    await sleep(Math.random() * BACKOFF_BASE_MS * 2 ** attempt);
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
