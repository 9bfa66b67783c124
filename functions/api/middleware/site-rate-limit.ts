import type { MiddlewareObj } from '@middy/core';
import type { Context } from 'aws-lambda';
import { countSiteRequest } from '../../data/site-rate-limits.ts';
import { type Budget, judge, windowStart } from '../../domain/rate-limit.ts';
import { config } from '../../kernel/config.ts';
import { RateLimitedError } from '../../kernel/errors.ts';
import type { PipelineStep } from '../answers.ts';
import type { HttpEvent } from '../http.ts';
import { callerOf, stateOf } from '../request-state.ts';
import type { RouteDefinition } from '../route.ts';
import { rateLimitStep } from './rate-limit.ts';

const WINDOW_SECONDS = 60;

/** The route whose calls are Inquiries: they also spend `inquiry-minute`. */
export function isInquiryRoute(route: RouteDefinition): boolean {
  return route.operationId === 'createSiteLead';
}

/**
 * The site budgets (interface §8): `ip-minute` per visitor over every publishable call of the
 * Tenant, `site-minute` over all the Tenant's publishable keys, and for an Inquiry `inquiry-minute`
 * per key and visitor. The headers are those of the secret API: every budget spent is listed in
 * `RateLimit-Policy`, the tightest in `RateLimit`; a spent one answers 429 with `Retry-After`.
 */
export function siteRateLimit(): MiddlewareObj<HttpEvent, unknown, Error, Context> {
  return {
    before: async (request) => {
      const state = stateOf(request.context);
      const { tenant, apiKey } = callerOf(state);
      const inquiry = isInquiryRoute(state.route);
      const now = Date.now() / 1000;
      const start = windowStart(now, WINDOW_SECONDS);
      const counts = await countSiteRequest({
        tenantId: tenant.tenantId,
        visitor: state.site?.visitor ?? 'unknown',
        windowStart: start,
        windowSeconds: WINDOW_SECONDS,
        inquiryKeyId: inquiry ? apiKey.id : undefined,
      });
      const c = config();
      const budgets: Budget[] = [
        {
          name: 'ip-minute',
          quota: c.SITE_RATE_LIMIT_IP_PER_MINUTE,
          windowSeconds: WINDOW_SECONDS,
          used: counts.visitorCount,
        },
        {
          name: 'site-minute',
          quota: c.SITE_RATE_LIMIT_TENANT_PER_MINUTE,
          windowSeconds: WINDOW_SECONDS,
          used: counts.siteCount,
        },
      ];
      if (counts.inquiryCount !== undefined) {
        budgets.push({
          name: 'inquiry-minute',
          quota: c.SITE_RATE_LIMIT_INQUIRY_PER_MINUTE,
          windowSeconds: WINDOW_SECONDS,
          used: counts.inquiryCount,
        });
      }
      const verdict = judge(budgets, now);
      const { 'Retry-After': _retry, ...everyResponse } = verdict.headers;
      state.rateLimitHeaders = everyResponse;
      if (!verdict.allowed) {
        throw new RateLimitedError('Rate limit exceeded: retry after the window resets', verdict.headers);
      }
    },
  };
}

/** What the site budgets answer: as the secret API's step (429 and the budget headers). */
export const siteRateLimitStep: PipelineStep = { ...rateLimitStep, name: 'siteRateLimit' };
