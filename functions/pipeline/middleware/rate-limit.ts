import type { MiddlewareObj } from '@middy/core';
import type { Context } from 'aws-lambda';
import { ErrorOut } from '../../contract/errors.ts';
import { isThrottled } from '../../data/errors.ts';
import { countRequest } from '../../data/rate-limits.ts';
import { judge, windowStart } from '../../domain/rate-limit.ts';
import { config } from '../../kernel/config.ts';
import { RateLimitedError } from '../../kernel/errors.ts';
import type { HeaderSpec, PipelineStep } from '../answers.ts';
import type { HttpEvent } from '../http.ts';
import { callerOf, type RequestState, stateOf } from '../request-state.ts';
import { isWrite } from '../route.ts';

const WINDOW_SECONDS = 60;

/**
 * Counts the request (one UpdateItem) and judges it: sets the budget headers every answer carries,
 * and rejects with the 429 when a budget is spent.
 */
async function countAndJudge(state: RequestState): Promise<void> {
  const { tenant, apiKey } = callerOf(state);
  const now = Date.now() / 1000;
  const start = windowStart(now, WINDOW_SECONDS);
  const { RATE_LIMIT_KEY_PER_MINUTE, RATE_LIMIT_TENANT_PER_MINUTE } = config();
  const quotas = {
    key: RATE_LIMIT_KEY_PER_MINUTE,
    tenant: tenant.rateLimitPerMinute ?? RATE_LIMIT_TENANT_PER_MINUTE,
  };
  // Counted only when both budgets have room: a refused request spends neither.
  const counts = await countRequest(tenant.tenantId, apiKey.id, start, WINDOW_SECONDS, quotas).catch(
    (error: unknown) => {
      // A counter throttled even after the SDK's retries means the Tenant's window item takes more
      // requests than its partition can count: that is a flood, answered as the Tenant's budget
      // spent (429, retry once the window resets), never a 500 for the whole Tenant.
      if (isThrottled(error)) return { keyCount: 0, tenantCount: quotas.tenant + 1 };
      throw error;
    },
  );
  const verdict = judge(
    [
      { name: 'key-minute', quota: quotas.key, windowSeconds: WINDOW_SECONDS, used: counts.keyCount },
      {
        name: 'tenant-minute',
        quota: quotas.tenant,
        windowSeconds: WINDOW_SECONDS,
        used: counts.tenantCount,
      },
    ],
    now,
  );
  const { 'Retry-After': _retry, ...everyResponse } = verdict.headers;
  state.rateLimitHeaders = everyResponse;
  if (!verdict.allowed)
    throw new RateLimitedError('Rate limit exceeded: retry after the window resets', verdict.headers);
}

/**
 * A read's budget count, started beside its handler: the handler's own round trip runs while the
 * counter's does, and the answer waits for the verdict ({@link awaitCountAfterRead},
 * {@link awaitCountOnError}). Used by the secret API's and the site's budgets alike.
 */
export function countBesideRead(state: RequestState, counting: Promise<void>): void {
  // Awaited in after/onError; this only keeps a rejection from being reported as unhandled while
  // the handler runs.
  counting.catch(() => {});
  state.pendingCount = counting;
}

/** A read's count still in flight while its handler runs, until the answer waits for it. */
function takePending(state: RequestState): Promise<void> | undefined {
  const pending = state.pendingCount;
  state.pendingCount = undefined;
  return pending;
}

/** The read answered: its answer waits for the verdict (a 429 or a failed count replaces it). */
export async function awaitCountAfterRead(state: RequestState): Promise<void> {
  await takePending(state);
}

/** The read failed: over budget (429) or a failed count (500) wins over whatever it answered. */
export async function awaitCountOnError(state: RequestState, request: { error?: unknown }): Promise<void> {
  const pending = takePending(state);
  if (!pending) return;
  try {
    await pending;
  } catch (error) {
    request.error = error as Error;
  }
}

/**
 * Step 5: one conditional UpdateItem counts the request against the key's and the Tenant's budgets
 * (only when both have room: a refused request spends neither).
 *
 * A write waits for the verdict before anything else runs (a refused write must change nothing).
 * A read starts the count and goes on at once, so its own round trip runs beside the counter's:
 * the answer then waits for the verdict (`after`, or `onError` when the read failed), and a read over
 * budget still answers 429, its result dropped. Every request is counted once either way, so the
 * budget counts the same; a failed count answers 500, as it did when it ran first, except a throttled
 * counter, which answers 429 (the Tenant's budget taken as spent for the window).
 */
export function rateLimit(): MiddlewareObj<HttpEvent, unknown, Error, Context> {
  return {
    before: async (request) => {
      const state = stateOf(request.context);
      if (isWrite(state.route)) return countAndJudge(state);
      countBesideRead(state, countAndJudge(state));
    },
    after: async (request) => awaitCountAfterRead(stateOf(request.context)),
    onError: async (request) => awaitCountOnError(stateOf(request.context), request),
  };
}

/**
 * The documented examples are headers `judge` itself writes (a key's first request 18 seconds into the
 * minute), so the document shows the form the service sends: policy names unquoted.
 */
const EXAMPLE = judge(
  [
    { name: 'key-minute', quota: 600, windowSeconds: WINDOW_SECONDS, used: 1 },
    { name: 'tenant-minute', quota: 3000, windowSeconds: WINDOW_SECONDS, used: 1 },
  ],
  18,
).headers;

export const RATE_LIMIT_HEADERS: Record<string, Omit<HeaderSpec, 'required'>> = {
  RateLimit: {
    description: `IETF draft: the tightest budget, e.g. \`${EXAMPLE.RateLimit}\`. Site routes leave this header and the other budget headers off a successful GET: the edge caches that answer for every visitor, and the budget is one visitor's (they are on 429s and uncached answers)`,
    schema: { type: 'string' },
  },
  'RateLimit-Policy': {
    description: `IETF draft: every budget, e.g. \`${EXAMPLE['RateLimit-Policy']}\``,
    schema: { type: 'string' },
  },
  'X-RateLimit-Limit': {
    description: 'Requests the tightest budget allows per window',
    schema: { type: 'integer', minimum: 0 },
  },
  'X-RateLimit-Remaining': {
    description: 'Requests left in that budget',
    schema: { type: 'integer', minimum: 0 },
  },
  'X-RateLimit-Reset': {
    description: 'Seconds until the window resets (not a timestamp)',
    schema: { type: 'integer', minimum: 0 },
  },
};

/** What step 5 can answer (429), and the budget headers it puts on every answer from here on. */
export const rateLimitStep: PipelineStep = {
  name: 'rateLimit',
  answers: () => ({
    429: {
      description: 'A rate budget is spent; retry after Retry-After seconds',
      schema: ErrorOut,
      headers: {
        'Retry-After': {
          description: 'Seconds to wait before retrying',
          schema: { type: 'integer', minimum: 0 },
          required: true,
        },
      },
    },
  }),
  everyAnswerHeaders: () => RATE_LIMIT_HEADERS,
};
