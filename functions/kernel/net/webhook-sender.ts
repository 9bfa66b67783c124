import { Webhook } from 'standardwebhooks';
import type { Dispatcher } from 'undici';

/** A receiver has this long to answer (the published webhook response time); later is a failure. */
export const WEBHOOK_TIMEOUT_MS = 10_000;
/** How much of a receiver's answer is kept in the delivery log. */
export const RESPONSE_BODY_LIMIT_BYTES = 4096;
export const WEBHOOK_USER_AGENT = 'ListingsLeads-Webhooks/1.0 (+https://www.standardwebhooks.com/)';

export interface WebhookRequest {
  url: string;
  /** The endpoint's `whsec_…` secret. */
  secret: string;
  /** The event id: `webhook-id`, the same on every attempt. */
  messageId: string;
  /** The envelope JSON, sent as is and signed as is. */
  payload: string;
}

/** What one attempt got: a status code, or none and an error (timeout, refused, blocked address). */
export interface WebhookResponse {
  statusCode: number | null;
  error: string | null;
  durationMs: number;
  responseBody: string | null;
}

let shared: Promise<Dispatcher> | undefined;

/**
 * The public-only dispatcher, one per container. undici (and the dispatcher built on it) is imported
 * on the first send, not with this module: bundled, it is a chunk of its own (lib/bundling.ts), so
 * the functions that manage endpoints without sending never load it.
 */
function defaultDispatcher(): Promise<Dispatcher> {
  shared ??= import('./public-dispatcher.ts').then(({ publicDispatcher }) => publicDispatcher());
  return shared;
}

/** The Standard Webhooks headers for one attempt: a fresh timestamp and signature each time. */
export function signedHeaders(req: WebhookRequest, now = new Date()): Record<string, string> {
  const timestamp = new Date(Math.floor(now.getTime() / 1000) * 1000);
  return {
    'content-type': 'application/json',
    'user-agent': WEBHOOK_USER_AGENT,
    'webhook-id': req.messageId,
    'webhook-timestamp': String(timestamp.getTime() / 1000),
    'webhook-signature': new Webhook(req.secret).sign(req.messageId, timestamp, req.payload),
  };
}

async function readLimited(body: Dispatcher.ResponseData['body']): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    const buffer = chunk as Buffer;
    chunks.push(buffer);
    size += buffer.length;
    if (size >= RESPONSE_BODY_LIMIT_BYTES) break;
  }
  body.destroy();
  return Buffer.concat(chunks).subarray(0, RESPONSE_BODY_LIMIT_BYTES).toString('utf8');
}

/**
 * POSTs a signed webhook, through the public-only dispatcher, within 10 s. Redirects are not
 * followed (undici's `request` never does): a 3xx comes back as the status it is, a failure.
 */
export async function sendWebhook(
  req: WebhookRequest,
  options: { dispatcher?: Dispatcher; timeoutMs?: number } = {},
): Promise<WebhookResponse> {
  const started = performance.now();
  const timeoutMs = options.timeoutMs ?? WEBHOOK_TIMEOUT_MS;
  const elapsed = () => Math.round(performance.now() - started);
  try {
    const { request } = await import('undici');
    const response = await request(req.url, {
      method: 'POST',
      headers: signedHeaders(req),
      body: req.payload,
      dispatcher: options.dispatcher ?? (await defaultDispatcher()),
      signal: AbortSignal.timeout(timeoutMs),
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
    });
    let responseBody: string | null = null;
    try {
      responseBody = await readLimited(response.body);
    } catch {
      responseBody = null;
    }
    return { statusCode: response.statusCode, error: null, durationMs: elapsed(), responseBody };
  } catch (error) {
    const e = error as Error & { code?: string; cause?: Error & { code?: string } };
    const root = e.cause ?? e;
    const timedOut = e.name === 'TimeoutError' || e.name === 'AbortError' || root.name === 'TimeoutError';
    // A refused address names the refusal only: what a receiver's name resolves to stays ours.
    const message = timedOut
      ? `timeout: no answer within ${timeoutMs / 1000} s`
      : root.code === 'EBLOCKEDADDRESS'
        ? 'EBLOCKEDADDRESS: the host is not reachable at a public address only, so nothing was sent'
        : `${root.code ?? root.name}: ${root.message}`;
    return { statusCode: null, error: message, durationMs: elapsed(), responseBody: null };
  }
}
