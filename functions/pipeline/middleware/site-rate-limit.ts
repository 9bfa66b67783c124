import type { MiddlewareObj } from '@middy/core';
import type { Context } from 'aws-lambda';
import {
  countSiteInquiry,
  countSiteRequest,
  giveBackSiteInquiry,
  peekSiteRequest,
} from '../../data/site-rate-limits.ts';
import { type Budget, judge, windowStart } from '../../domain/rate-limit.ts';
import { config } from '../../kernel/config.ts';
import { RateLimitedError } from '../../kernel/errors.ts';
import { requireInquiryToken } from '../../services/site-writes.ts';
import type { PipelineStep } from '../answers.ts';
import type { HttpEvent } from '../http.ts';
import { callerOf, type RequestState, stateOf } from '../request-state.ts';
import { isWrite, type RouteDefinition } from '../route.ts';
import {
  awaitCountAfterRead,
  awaitCountOnError,
  countBesideRead,
  RATE_LIMIT_HEADERS,
  rateLimitStep,
} from './rate-limit.ts';

const WINDOW_SECONDS = 60;

/** The route whose calls are Inquiries: they also spend `inquiry-minute`. */
export function isInquiryRoute(route: RouteDefinition): boolean {
  return route.operationId === 'createSiteLead';
}

/**
 * The route judged by the budgets without spending them: the view count, whose one conditional
 * write per view is its own limit (a visitor's repeat within the minute is refused by it, for the
 * same one write unit), so counting it as well would cost two writes more than the view itself.
 */
export function spendsNoBudget(route: RouteDefinition): boolean {
  return route.operationId === 'countSitePropertyView';
}

/** Sets the budget headers of every answer from `budgets`; a spent one → 429 with `Retry-After`. */
function applyVerdict(state: RequestState, budgets: Budget[], now: number, admitted: boolean): void {
  const verdict = judge(budgets, now);
  const { 'Retry-After': _retry, ...everyResponse } = verdict.headers;
  state.rateLimitHeaders = everyResponse;
  if (!admitted || !verdict.allowed) {
    throw new RateLimitedError('Rate limit exceeded: retry after the window resets', verdict.headers);
  }
}

/** The Inquiry's Turnstile token, read leniently from the raw body (validation comes later). */
function tokenOf(event: HttpEvent): unknown {
  if (!event.body) return undefined;
  try {
    const text = event.isBase64Encoded ? Buffer.from(event.body, 'base64').toString('utf8') : event.body;
    const body = JSON.parse(text) as unknown;
    return body !== null && typeof body === 'object'
      ? (body as { turnstile?: unknown }).turnstile
      : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Counts a site request against `ip-minute`, an IPv6 visitor's `network-minute` and `site-minute`
 * (or, for the view count, reads them: {@link spendsNoBudget}) and judges it (the budget headers
 * set, 429 when one is spent); the budgets and window, for an Inquiry's further count.
 */
async function judgeSiteRequest(state: RequestState) {
  const { tenant } = callerOf(state);
  const visitor = state.site?.visitor ?? 'unknown';
  const network = state.site?.network;
  const now = Date.now() / 1000;
  const start = windowStart(now, WINDOW_SECONDS);
  const c = config();
  const count = spendsNoBudget(state.route) ? peekSiteRequest : countSiteRequest;
  const counts = await count({
    tenantId: tenant.tenantId,
    visitor,
    network,
    windowStart: start,
    windowSeconds: WINDOW_SECONDS,
    quotas: {
      visitor: c.SITE_RATE_LIMIT_IP_PER_MINUTE,
      network: c.SITE_RATE_LIMIT_NETWORK_PER_MINUTE,
      site: c.SITE_RATE_LIMIT_TENANT_PER_MINUTE,
    },
  });
  const budgets: Budget[] = [
    {
      name: 'ip-minute',
      quota: c.SITE_RATE_LIMIT_IP_PER_MINUTE,
      windowSeconds: WINDOW_SECONDS,
      used: counts.visitorCount,
    },
    ...(counts.networkCount !== undefined
      ? [
          {
            name: 'network-minute',
            quota: c.SITE_RATE_LIMIT_NETWORK_PER_MINUTE,
            windowSeconds: WINDOW_SECONDS,
            used: counts.networkCount,
          },
        ]
      : []),
    {
      name: 'site-minute',
      quota: c.SITE_RATE_LIMIT_TENANT_PER_MINUTE,
      windowSeconds: WINDOW_SECONDS,
      used: counts.siteCount,
    },
  ];
  applyVerdict(state, budgets, now, counts.admitted);
  return { budgets, now, start };
}

/**
 * The site budgets (docs/site-api.md), judged in order: `ip-minute` per visitor (an IPv4 address, an
 * IPv6 /64) over every publishable call of the Tenant, `network-minute` per IPv6 /48 (a household
 * or office stepping through the /64s of its /56 is one network), then `site-minute` over all the
 * Tenant's publishable keys, and for an Inquiry `inquiry-minute` per key and visitor. A shared
 * budget is spent only by requests the budgets before it admit, so that one visitor cannot lock the
 * site out, nor its network's neighbours, and one network cannot lock the site out. An Inquiry's
 * Turnstile token is checked next, before its body is validated (a bad token answers 403 even with
 * a body that would answer 422), side by side with its `inquiry-minute` count; only an Inquiry that
 * is taken in keeps its count (a refused token, a 422, any failure gives it back). The headers are
 * those of the secret API: every budget spent is listed in `RateLimit-Policy`, the tightest in
 * `RateLimit`; a spent one answers 429. The view count reads the budgets instead of spending them
 * ({@link spendsNoBudget}): refused while one is spent, its headers the budgets as they stand.
 */
export function siteRateLimit(): MiddlewareObj<HttpEvent, unknown, Error, Context> {
  return {
    before: async (request) => {
      const state = stateOf(request.context);
      // A read (every site GET: a search's catalogue catch-up, a listing) runs beside its count, as
      // the secret API's reads do; a write waits for the verdict (a refused write changes nothing).
      if (!isWrite(state.route))
        return countBesideRead(
          state,
          judgeSiteRequest(state).then(() => {}),
        );
      const { budgets, now, start } = await judgeSiteRequest(state);
      if (!isInquiryRoute(state.route)) return;

      const { tenant, apiKey } = callerOf(state);
      const visitor = state.site?.visitor ?? 'unknown';
      const quota = config().SITE_RATE_LIMIT_INQUIRY_PER_MINUTE;
      const inquiry = { tenantId: tenant.tenantId, visitor, keyId: apiKey.id, windowStart: start };
      const [token, counted] = await Promise.allSettled([
        requireInquiryToken({
          token: tokenOf(request.event),
          visitorIp: state.site?.ip,
          origins: state.site?.origins ?? [],
        }),
        countSiteInquiry({ ...inquiry, windowSeconds: WINDOW_SECONDS, quota }),
      ]);
      if (counted.status === 'fulfilled' && counted.value.admitted) {
        state.countedInquiry = () => giveBackSiteInquiry(inquiry);
      }
      if (token.status === 'rejected') throw token.reason;
      if (counted.status === 'rejected') throw counted.reason;
      budgets.push({
        name: 'inquiry-minute',
        quota,
        windowSeconds: WINDOW_SECONDS,
        used: counted.value.inquiryCount,
      });
      applyVerdict(state, budgets, now, counted.value.admitted);
    },
    after: async (request) => {
      const state = stateOf(request.context);
      await awaitCountAfterRead(state);
      // Taken in: the Inquiry keeps its count.
      state.countedInquiry = undefined;
    },
    onError: async (request) => {
      const state = stateOf(request.context);
      await awaitCountOnError(state, request);
      const giveBack = state.countedInquiry;
      state.countedInquiry = undefined;
      await giveBack?.();
    },
  };
}

/**
 * What the site budgets answer: as the secret API's step (429 and the budget headers), except that a
 * site GET's successful answer is cached at the edge for every visitor, so it carries no budget
 * headers (they describe one visitor's budget): on GETs they are documented as on some answers only.
 */
export const siteRateLimitStep: PipelineStep = {
  ...rateLimitStep,
  name: 'siteRateLimit',
  everyAnswerHeaders: ({ route }) =>
    isWrite(route)
      ? RATE_LIMIT_HEADERS
      : Object.fromEntries(
          Object.entries(RATE_LIMIT_HEADERS).map(([name, header]) => [
            name,
            { ...header, onlySometimes: true },
          ]),
        ),
};
