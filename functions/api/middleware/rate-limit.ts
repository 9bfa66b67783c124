import type { MiddlewareObj } from '@middy/core';
import type { Context } from 'aws-lambda';
import { ErrorOut } from '../../contract/errors.ts';
import { countRequest } from '../../data/rate-limits.ts';
import { judge, windowStart } from '../../domain/rate-limit.ts';
import { config } from '../../kernel/config.ts';
import { RateLimitedError } from '../../kernel/errors.ts';
import type { HeaderSpec, PipelineStep } from '../answers.ts';
import type { HttpEvent } from '../http.ts';
import { callerOf, stateOf } from '../request-state.ts';

const WINDOW_SECONDS = 60;

/** Step 5: one UpdateItem counts the request against the key's and the Tenant's budgets. */
export function rateLimit(): MiddlewareObj<HttpEvent, unknown, Error, Context> {
  return {
    before: async (request) => {
      const state = stateOf(request.context);
      const { tenant, apiKey } = callerOf(state);
      const now = Date.now() / 1000;
      const start = windowStart(now, WINDOW_SECONDS);
      const counts = await countRequest(tenant.tenantId, apiKey.id, start, WINDOW_SECONDS);
      const { RATE_LIMIT_KEY_PER_MINUTE, RATE_LIMIT_TENANT_PER_MINUTE } = config();
      const verdict = judge(
        [
          {
            name: 'key-minute',
            quota: RATE_LIMIT_KEY_PER_MINUTE,
            windowSeconds: WINDOW_SECONDS,
            used: counts.keyCount,
          },
          {
            name: 'tenant-minute',
            quota: tenant.rateLimitPerMinute ?? RATE_LIMIT_TENANT_PER_MINUTE,
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
    },
  };
}

const RATE_LIMIT_HEADERS: Record<string, Omit<HeaderSpec, 'required'>> = {
  RateLimit: {
    description: 'IETF draft: the tightest budget, e.g. `"key-minute";r=57;t=42`',
    schema: { type: 'string' },
  },
  'RateLimit-Policy': {
    description: 'IETF draft: every budget, e.g. `"key-minute";q=600;w=60, "tenant-minute";q=3000;w=60`',
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
