import { randomUUID } from 'node:crypto';
import type { Context } from 'aws-lambda';
import { type HttpEvent, type HttpResponse, header } from '../../pipeline/http.ts';
import { toHttpResponse } from '../../pipeline/middleware/error-handler.ts';
import { admitSiteRequest } from '../../pipeline/middleware/site-access.ts';
import { SITE_PAGE_HEADERS, SITE_REQUEST_HEADERS } from '../../pipeline/middleware/site-headers.ts';

/** How long a browser may reuse a preflight answer (Chromium caps it at 2 hours). */
export const PREFLIGHT_MAX_AGE_SECONDS = 7200;

/**
 * CORS preflight (`OPTIONS`) of every site path (the origin rules of docs/site-api.md): admitted
 * like the request it announces (`Access-Control-Request-Method`), so a disallowed origin gets 403
 * without CORS headers, an unknown key 404; an allowed one gets 204 with the methods, headers and
 * max age. Preflights spend no budget: the browser sends one before the request the budget counts.
 */
export async function handler(event: HttpEvent, _context?: Context): Promise<HttpResponse> {
  const requestId = event.requestContext?.requestId || randomUUID();
  try {
    const method = (header(event, SITE_REQUEST_HEADERS.preflightMethod) ?? 'GET').toUpperCase();
    const { corsHeaders } = await admitSiteRequest(event, method);
    return {
      statusCode: 204,
      headers: {
        ...corsHeaders,
        Vary: 'Origin',
        'Access-Control-Allow-Methods': 'GET, POST, OPTIONS',
        'Access-Control-Allow-Headers': SITE_PAGE_HEADERS.join(', '),
        'Access-Control-Max-Age': String(PREFLIGHT_MAX_AGE_SECONDS),
        'Cache-Control': 'no-store',
        'X-Request-Id': requestId,
      },
    };
  } catch (error) {
    const response = toHttpResponse(error, requestId);
    const admitted = response.statusCode === 503 || response.statusCode === 402;
    return {
      ...response,
      headers: {
        ...(admitted ? response.headers : stripCors(response.headers)),
        Vary: 'Origin',
        'Cache-Control': 'no-store',
        'X-Request-Id': requestId,
      },
    };
  }
}

function stripCors(headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).filter(([name]) => !name.startsWith('Access-Control-')));
}
