/**
 * Fetches a file from a URL a client gave (a photo import), through the public-only dispatcher:
 * every hop is checked as a URL (https, no userinfo, no private literal or local name) and, at
 * connect time, every address its name resolves to. Redirects are followed by hand, at most
 * `maxRedirects`, each re-checked; the whole fetch has one deadline; reading stops past `maxBytes`.
 */
import { type Dispatcher, request } from 'undici';
import { BlockedAddressError, checkPublicUrl, publicDispatcher } from './public-dispatcher.ts';

/** Why a fetch failed, in the words of an import's `failure_reason`. */
export type FetchFailureReason =
  | 'invalid_url'
  | 'blocked_address'
  | 'too_many_redirects'
  | 'http_error'
  | 'timeout'
  | 'too_large'
  | 'unreachable';

export type FetchOutcome =
  | { ok: true; body: Buffer; finalUrl: string }
  | { ok: false; reason: FetchFailureReason; status?: number; detail: string };

export interface FetchPublicFileOptions {
  maxBytes: number;
  maxRedirects: number;
  timeoutMs: number;
  /** The local switch (`privateUrlsAllowed()`): http and private hosts pass. */
  allowPrivate: boolean;
  /** @default a shared `publicDispatcher({ allowPrivate })` */
  dispatcher?: Dispatcher;
}

export const FETCH_USER_AGENT = 'ListingsLeads-PhotoImport/1.0';

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

const shared = new Map<boolean, Dispatcher>();
function dispatcherFor(allowPrivate: boolean): Dispatcher {
  let dispatcher = shared.get(allowPrivate);
  if (!dispatcher) {
    dispatcher = publicDispatcher({ allowPrivate });
    shared.set(allowPrivate, dispatcher);
  }
  return dispatcher;
}

/** A hop's URL judged before any connection: malformed (invalid_url) or aimed at a non-public host. */
function judgeUrl(
  url: string,
  allowPrivate: boolean,
): { reason: FetchFailureReason; detail: string } | undefined {
  const syntax = checkPublicUrl(url, { allowPrivate: true });
  if (syntax) return { reason: 'invalid_url', detail: `${syntax}: ${url}` };
  const address = checkPublicUrl(url, { allowPrivate });
  if (!address) return undefined;
  // Outside the local switch, plain http is refused as a URL problem, not an address one.
  return address === 'Must use https'
    ? { reason: 'invalid_url', detail: `${address}: ${url}` }
    : { reason: 'blocked_address', detail: address };
}

function causes(error: unknown): (Error & { code?: string })[] {
  const chain: (Error & { code?: string })[] = [];
  let current = error as (Error & { code?: string; cause?: unknown }) | undefined;
  for (let depth = 0; current && depth < 6; depth++) {
    chain.push(current);
    current = current.cause as typeof current;
  }
  return chain;
}

/** The failure a thrown connection or read error stands for. */
function failureOf(error: unknown, timeoutMs: number): { reason: FetchFailureReason; detail: string } {
  const chain = causes(error);
  const blocked = chain.find((e) => e instanceof BlockedAddressError || e.code === 'EBLOCKEDADDRESS');
  if (blocked) return { reason: 'blocked_address', detail: blocked.message };
  if (
    chain.some((e) => e.name === 'TimeoutError' || e.name === 'AbortError' || e.code?.includes('TIMEOUT'))
  ) {
    return { reason: 'timeout', detail: `no complete answer within ${timeoutMs / 1000} s` };
  }
  const root = chain.at(-1) ?? (error as Error & { code?: string });
  return { reason: 'unreachable', detail: `${root.code ?? root.name}: ${root.message}` };
}

async function readAtMost(
  body: Dispatcher.ResponseData['body'],
  maxBytes: number,
): Promise<Buffer | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    const buffer = chunk as Buffer;
    size += buffer.length;
    if (size > maxBytes) {
      body.destroy();
      return undefined;
    }
    chunks.push(buffer);
  }
  return Buffer.concat(chunks, size);
}

/** GETs `url`, following up to `maxRedirects` redirects, each checked; never throws. */
export async function fetchPublicFile(url: string, options: FetchPublicFileOptions): Promise<FetchOutcome> {
  const dispatcher = options.dispatcher ?? dispatcherFor(options.allowPrivate);
  const signal = AbortSignal.timeout(options.timeoutMs);
  let current = url;
  for (let redirects = 0; ; redirects++) {
    const refused = judgeUrl(current, options.allowPrivate);
    if (refused) return { ok: false, ...refused };
    let response: Dispatcher.ResponseData;
    try {
      response = await request(current, {
        method: 'GET',
        headers: { 'user-agent': FETCH_USER_AGENT, accept: 'image/*' },
        dispatcher,
        signal,
        headersTimeout: options.timeoutMs,
        bodyTimeout: options.timeoutMs,
      });
    } catch (error) {
      return { ok: false, ...failureOf(error, options.timeoutMs) };
    }
    const { statusCode, headers, body } = response;
    if (REDIRECTS.has(statusCode)) {
      body.resume();
      const location = headers.location;
      const target = Array.isArray(location) ? location[0] : location;
      if (!target) {
        return { ok: false, reason: 'http_error', status: statusCode, detail: 'a redirect without Location' };
      }
      if (redirects >= options.maxRedirects) {
        return {
          ok: false,
          reason: 'too_many_redirects',
          detail: `more than ${options.maxRedirects} redirects`,
        };
      }
      try {
        current = new URL(target, current).href;
      } catch {
        return { ok: false, reason: 'invalid_url', detail: `a redirect to an invalid URL: ${target}` };
      }
      continue;
    }
    if (statusCode < 200 || statusCode > 299) {
      body.resume();
      return {
        ok: false,
        reason: 'http_error',
        status: statusCode,
        detail: `the server answered ${statusCode}`,
      };
    }
    const declared = Number(headers['content-length']);
    if (Number.isFinite(declared) && declared > options.maxBytes) {
      body.destroy();
      return {
        ok: false,
        reason: 'too_large',
        detail: `${declared} bytes declared, over ${options.maxBytes}`,
      };
    }
    try {
      const file = await readAtMost(body, options.maxBytes);
      if (!file) return { ok: false, reason: 'too_large', detail: `over ${options.maxBytes} bytes` };
      return { ok: true, body: file, finalUrl: current };
    } catch (error) {
      return { ok: false, ...failureOf(error, options.timeoutMs) };
    }
  }
}
