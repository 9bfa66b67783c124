import type { Context } from 'aws-lambda';
import type { IdSource } from '../kernel/ids.ts';
import type { Caller } from '../services/caller.ts';
import type { RouteDefinition } from './route.ts';

/** What a site route's admission learned of the visitor. */
export interface SiteRequest {
  /** The bucket the visitor's budgets count: an IPv4 address or an IPv6 /64. */
  visitor: string;
  /** An IPv6 visitor's /48, which `network-minute` counts as a whole; undefined for IPv4. */
  network?: string | undefined;
  /** The visitor's address (CloudFront's viewer address, or the socket's locally). */
  ip: string | undefined;
  /** The page the request came from (`Referer`). */
  referer: string | undefined;
  /** The publishable key's allowed origins (a Turnstile token must come from one of their hosts). */
  origins: readonly string[];
}

/** What the middleware chain learns about one request, shared by its steps and the handler. */
export interface RequestState {
  route: RouteDefinition;
  requestId: string;
  startedAt: number;
  caller?: Caller;
  /** RateLimit headers computed for this request; added to every answer, errors included. */
  rateLimitHeaders: Record<string, string>;
  /** A read's rate-limit count, in flight beside its handler until the answer waits for the verdict. */
  pendingCount?: Promise<void> | undefined;
  /** Set while an Idempotency-Key is held, so the answer can be stored (or the key released). */
  idempotency?: {
    /** The ids this request creates, derived from the key's seed (see functions/kernel/ids.ts). */
    ids: IdSource;
    release: () => Promise<void>;
    complete: (response: import('./http.ts').HttpResponse) => Promise<void>;
  };
  replayed?: boolean;
  /** Site routes: the visitor their budgets count (an IPv4 address or an IPv6 /64 and /48). */
  site?: SiteRequest;
  /** An Inquiry counted against `inquiry-minute`: given back if the Inquiry is then refused. */
  countedInquiry?: (() => Promise<void>) | undefined;
  /** Site routes: CORS headers for every answer after the origin was admitted. */
  corsHeaders?: Record<string, string>;
  input?: { params: unknown; query: unknown; body: unknown };
}

type ContextWithState = Context & { requestState?: RequestState };

export function attachState(context: Context, state: RequestState): void {
  (context as ContextWithState).requestState = state;
}

export function stateOf(context: Context): RequestState {
  const state = (context as ContextWithState).requestState;
  if (!state) throw new Error('Request state missing: the handler ran outside defineOperation');
  return state;
}

export function callerOf(state: RequestState): Caller {
  if (!state.caller) throw new Error('No authenticated caller on this request');
  return state.caller;
}
