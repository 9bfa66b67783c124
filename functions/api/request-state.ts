import type { Context } from 'aws-lambda';
import type { Caller } from '../services/caller.ts';
import type { RouteDefinition } from './route.ts';

/** What the middleware chain learns about one request, shared by its steps and the handler. */
export interface RequestState {
  route: RouteDefinition;
  requestId: string;
  startedAt: number;
  caller?: Caller;
  /** RateLimit headers computed for this request; added to every answer, errors included. */
  rateLimitHeaders: Record<string, string>;
  /** Set while an Idempotency-Key is held, so the answer can be stored (or the key released). */
  idempotency?: {
    release: () => Promise<void>;
    complete: (response: import('./http.ts').HttpResponse) => Promise<void>;
  };
  replayed?: boolean;
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
