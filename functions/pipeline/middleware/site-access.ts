import type { MiddlewareObj } from '@middy/core';
import type { Context } from 'aws-lambda';
import { ErrorOut } from '../../contract/errors.ts';
import { findApiKeyByHash, markApiKeyExposed } from '../../data/api-keys.ts';
import { getTenant } from '../../data/tenants.ts';
import { hashSecretKey, PUBLISHABLE_KEY_PREFIX, SECRET_KEY_PREFIX } from '../../domain/api-key-secret.ts';
import { originAllowed } from '../../domain/origins.ts';
import { type SiteVisitor, siteVisitor, viewerAddressIp } from '../../domain/visitor.ts';
import { config } from '../../kernel/config.ts';
import {
  BadRequestError,
  ForbiddenError,
  NotFoundError,
  PayloadTooLargeError,
  PaymentRequiredError,
  ServiceUnavailableError,
} from '../../kernel/errors.ts';
import { checkOriginSecret } from '../../kernel/site-secrets.ts';
import type { Caller } from '../../services/caller.ts';
import type { PipelineStep } from '../answers.ts';
import { type HttpEvent, header } from '../http.ts';
import { type SiteRequest, stateOf } from '../request-state.ts';
import { isWrite, type RouteDefinition } from '../route.ts';
import { SITE_REQUEST_HEADERS } from './site-headers.ts';

/** Site writes are small forms: a larger body is refused (413) before it is parsed. */
export const SITE_MAX_BODY_BYTES = 64 * 1024;

/** The header CloudFront adds to every request it forwards to the API (lib/constructs/site-distribution.ts). */
export const ORIGIN_VERIFY_HEADER = 'x-origin-verify';

interface SiteKeyEntry {
  caller: Caller;
  origins: readonly string[];
  cachedUntil: number;
}

/** Publishable keys with their Tenant, for at most AUTH_CACHE_TTL_SECONDS (as secret keys are). */
const cache = new Map<string, SiteKeyEntry>();
const CACHE_LIMIT = 1000;

export function clearSiteKeyCache(): void {
  cache.clear();
}

async function lookUp(keyHash: string): Promise<SiteKeyEntry | undefined> {
  const apiKey = await findApiKeyByHash(keyHash);
  if (!apiKey || apiKey.revokedAt || apiKey.kind !== 'publishable') return undefined;
  const tenant = await getTenant(apiKey.tenantId);
  if (!tenant) return undefined;
  const { id, name, scopes, tenantId } = apiKey;
  return {
    caller: { tenant, apiKey: { id, name, scopes, tenantId } },
    origins: apiKey.origins ?? [],
    cachedUntil: Date.now() + config().AUTH_CACHE_TTL_SECONDS * 1000,
  };
}

async function siteKey(key: string): Promise<SiteKeyEntry> {
  const keyHash = hashSecretKey(key);
  let entry = cache.get(keyHash);
  if (!entry || entry.cachedUntil <= Date.now()) {
    cache.delete(keyHash);
    entry = await lookUp(keyHash);
    if (!entry) throw new NotFoundError('Unknown or revoked publishable key');
    if (config().AUTH_CACHE_TTL_SECONDS > 0) {
      if (cache.size >= CACHE_LIMIT) cache.delete(cache.keys().next().value as string);
      cache.set(keyHash, entry);
    }
  }
  return entry;
}

/** What admission establishes about a site request. */
export interface SiteAdmission {
  caller: Caller;
  site: SiteRequest;
  /** CORS headers every further answer carries (the page's origin, when a browser sent one). */
  corsHeaders: Record<string, string>;
}

/**
 * Admits a site request (the publishable-key rules of docs/site-api.md), in this order:
 * 1. behind CloudFront, a request without the distribution's secret header → 403 (budgets count
 *    the viewer address CloudFront reports, so nothing may reach the API around it);
 * 2. a secret key (`svc_live_…`) in `key` → 400, and that key is marked exposed;
 * 3. an unknown or revoked publishable key → 404;
 * 4. the origin rules → 403 without CORS headers: with an `Origin` header, `origin` must equal it
 *    (on a POST it may be omitted) and be allowed; without one, a sent `origin` must be allowed;
 * 5. a suspended account → 503; a write on a read-only subscription → 402 (these two, and every
 *    later answer, carry the CORS headers, so the page can read them).
 */
export async function admitSiteRequest(
  event: HttpEvent,
  method: string,
  route?: RouteDefinition,
): Promise<SiteAdmission> {
  // The current value, or the previous one while a rotation is under way (kernel/site-secrets.ts).
  const originCheck = await checkOriginSecret(header(event, ORIGIN_VERIFY_HEADER));
  const viaEdge = originCheck !== 'off';
  if (originCheck === 'refused') {
    throw new ForbiddenError('Site routes are served through the site distribution only');
  }

  const query = event.queryStringParameters ?? {};
  const key = query.key;
  if (key?.startsWith(SECRET_KEY_PREFIX)) {
    const exposed = await findApiKeyByHash(hashSecretKey(key));
    if (exposed && exposed.kind !== 'publishable') {
      await markApiKeyExposed(exposed.keyHash, new Date().toISOString());
    }
    throw new BadRequestError(
      'A secret API key was sent in a URL: it is now marked exposed. Use a publishable key (svc_pk_…) on web pages, and have the Tenant Admin revoke the secret key',
    );
  }
  if (!key?.startsWith(PUBLISHABLE_KEY_PREFIX)) throw new NotFoundError('Unknown or revoked publishable key');
  const entry = await siteKey(key);

  const pageOrigin = header(event, SITE_REQUEST_HEADERS.origin);
  const origin = query.origin;
  if (pageOrigin !== undefined) {
    const optional = method !== 'GET' && method !== 'OPTIONS' && origin === undefined;
    if (!optional && origin !== pageOrigin) {
      throw new ForbiddenError('The origin parameter must be the origin of the page');
    }
    if (!originAllowed(entry.origins, pageOrigin))
      throw new ForbiddenError('This origin is not allowed for this key');
  } else if (origin !== undefined && !originAllowed(entry.origins, origin)) {
    throw new ForbiddenError('This origin is not allowed for this key');
  }
  const corsHeaders: Record<string, string> = {};
  if (pageOrigin !== undefined) corsHeaders['Access-Control-Allow-Origin'] = pageOrigin;

  const ip = viaEdge
    ? viewerAddressIp(header(event, SITE_REQUEST_HEADERS.viewerAddress) ?? '')
    : event.requestContext?.http?.sourceIp;
  const { visitor, network }: SiteVisitor = (ip ? siteVisitor(ip) : undefined) ?? { visitor: 'unknown' };

  const { tenant } = entry.caller;
  const admission = {
    caller: entry.caller,
    site: {
      visitor,
      network,
      ip,
      referer: header(event, SITE_REQUEST_HEADERS.referer),
      origins: entry.origins,
    },
    corsHeaders,
  };
  if (tenant.suspended)
    throw Object.assign(new ServiceUnavailableError('This account is suspended'), { headers: corsHeaders });
  if (route && isWrite(route) && tenant.subscription === 'read_only') {
    throw Object.assign(
      new PaymentRequiredError('The subscription is read-only: writes are disabled until it is renewed'),
      { headers: corsHeaders },
    );
  }
  return admission;
}

/** Step 2 of a site route's chain (in place of authenticate, tenant state and scope). */
export function siteAccess(): MiddlewareObj<HttpEvent, unknown, Error, Context> {
  return {
    before: async (request) => {
      const state = stateOf(request.context);
      const admission = await admitSiteRequest(request.event, state.route.method, state.route);
      state.caller = admission.caller;
      state.site = admission.site;
      state.corsHeaders = admission.corsHeaders;
      const body = request.event.body;
      if (
        body &&
        Buffer.byteLength(body, request.event.isBase64Encoded ? 'base64' : 'utf8') > SITE_MAX_BODY_BYTES
      ) {
        throw new PayloadTooLargeError('The request body is larger than 64 KB');
      }
    },
  };
}

/** What site admission can answer (documented on every site operation). */
export const siteAccessStep: PipelineStep = {
  name: 'siteAccess',
  answers: ({ route }) => ({
    400: { description: 'A secret API key was sent as key (it is now marked exposed)', schema: ErrorOut },
    ...(isWrite(route)
      ? { 402: { description: 'The subscription is read-only: writes are disabled', schema: ErrorOut } }
      : {}),
    403: {
      description:
        'The origin is missing, not the page’s, or not allowed for this key (no CORS headers); or the request did not come through the site distribution',
      schema: ErrorOut,
    },
    404: { description: 'Unknown or revoked publishable key', schema: ErrorOut },
    ...(route.method === 'POST'
      ? { 413: { description: 'The body is larger than 64 KB', schema: ErrorOut } }
      : {}),
    503: { description: 'The account is suspended', schema: ErrorOut },
  }),
  everyAnswerHeaders: () => ({
    'Access-Control-Allow-Origin': {
      description: 'The page origin, on answers to an allowed browser origin',
      schema: { type: 'string' },
      onlySometimes: true,
    },
    Vary: { description: '`Origin`: answers differ by the page origin', schema: { type: 'string' } },
    'Cache-Control': {
      description:
        'A successful GET: `public, s-maxage=60, stale-while-revalidate=300` (cached at the edge per full URL and Origin); anything else: `no-store`',
      schema: { type: 'string' },
    },
  }),
};
