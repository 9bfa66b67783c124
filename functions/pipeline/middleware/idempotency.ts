import { createHash } from 'node:crypto';
import type { MiddlewareObj } from '@middy/core';
import type { Context } from 'aws-lambda';
import { ErrorOut, ValidationErrorOut } from '../../contract/errors.ts';
import {
  acquireIdempotencyKey,
  completeIdempotencyKey,
  type IdempotencyScope,
  releaseIdempotencyKey,
} from '../../data/idempotency.ts';
import { ConflictError, RequestValidationError } from '../../kernel/errors.ts';
import { seededIds } from '../../kernel/ids.ts';
import type { PipelineStep } from '../answers.ts';
import { type HttpEvent, type HttpResponse, header } from '../http.ts';
import { callerOf, stateOf } from '../request-state.ts';
import { isWrite } from '../route.ts';

const MAX_KEY_LENGTH = 255;

/** Same JSON with keys in a fixed order, so that formatting does not change a fingerprint. */
function canonical(body: string | undefined): string {
  if (!body) return '';
  try {
    return JSON.stringify(JSON.parse(body), (_key, value: unknown) =>
      value && typeof value === 'object' && !Array.isArray(value)
        ? Object.fromEntries(Object.entries(value).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
        : value,
    );
  } catch {
    return body;
  }
}

/**
 * The query with its parameters in a fixed order (a repeated name keeps its values' order): `?a=1&b=2`
 * and `?b=2&a=1` are one request, `?lang=es` and `?lang=en` are two.
 */
function canonicalQuery(rawQueryString: string | undefined): string {
  if (!rawQueryString) return '';
  const parameters = [...new URLSearchParams(rawQueryString)];
  parameters.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return new URLSearchParams(parameters).toString();
}

/**
 * What identifies a request under one Idempotency-Key: method, path, query and body. The query counts
 * because it changes what a write does (`?lang=es` writes the Spanish text).
 */
export function fingerprintOf(event: HttpEvent): string {
  const body =
    event.body && event.isBase64Encoded ? Buffer.from(event.body, 'base64').toString('utf8') : event.body;
  const query = canonicalQuery(event.rawQueryString);
  // Without a query the text is what it was before the query counted: keys held across a deploy still replay.
  const target = query ? `${event.rawPath}?${query}` : event.rawPath;
  return createHash('sha256')
    .update(`${event.requestContext.http.method} ${target}\n${canonical(body)}`)
    .digest('hex');
}

/** Headers that describe this one answer, not the stored one: never replayed. */
const PER_REQUEST_HEADERS = /^(ratelimit|ratelimit-policy|x-ratelimit-.*|retry-after|x-request-id)$/i;

/**
 * Step 6, writes only: the first request with an Idempotency-Key runs and its answer (if not 5xx)
 * is kept for 24 hours; the same key and request (method, path, query, body) replays it with
 * `Idempotent-Replayed: true`; the same key with another request → 422; while the first still
 * runs → 409.
 */
export function idempotency(): MiddlewareObj<HttpEvent, unknown, Error, Context> {
  return {
    before: async (request) => {
      const state = stateOf(request.context);
      const key = header(request.event, 'idempotency-key');
      if (key === undefined || !isWrite(state.route)) return;
      if (key.length < 1 || key.length > MAX_KEY_LENGTH) {
        throw RequestValidationError.single(
          ['header', 'Idempotency-Key'],
          `Idempotency-Key must be 1 to ${MAX_KEY_LENGTH} characters`,
          'string_length',
        );
      }
      const { tenant, apiKey } = callerOf(state);
      const scope: IdempotencyScope = {
        tenantId: tenant.tenantId,
        // A publishable key is shared by every visitor of the website: one visitor's key must neither
        // block (422) nor replay (another's Inquiry id) another's request, so the visitor scopes it too.
        apiKeyId: state.site ? `${apiKey.id}#visitor#${state.site.visitor}` : apiKey.id,
        idempotencyKey: key,
      };
      const acquired = await acquireIdempotencyKey(scope, fingerprintOf(request.event), Date.now());
      switch (acquired.outcome) {
        case 'acquired':
          state.idempotency = {
            ids: seededIds(acquired.idSeed, acquired.resumed),
            complete: (response: HttpResponse) =>
              completeIdempotencyKey(scope, {
                statusCode: response.statusCode,
                headers: Object.fromEntries(
                  Object.entries(response.headers).filter(([h]) => !PER_REQUEST_HEADERS.test(h)),
                ),
                ...(response.body !== undefined ? { body: response.body } : {}),
              }),
            release: () => releaseIdempotencyKey(scope),
          };
          return;
        case 'in_progress':
          throw new ConflictError(
            'A request with this Idempotency-Key is still being processed; retry later',
          );
        case 'mismatch':
          throw RequestValidationError.single(
            ['header', 'Idempotency-Key'],
            'This Idempotency-Key was used with a different request (method, path, query or body)',
            'idempotency_key_reused',
          );
        case 'replay':
          state.replayed = true;
          return {
            statusCode: acquired.response.statusCode,
            headers: { ...acquired.response.headers, 'Idempotent-Replayed': 'true' },
            ...(acquired.response.body !== undefined ? { body: acquired.response.body } : {}),
          } satisfies HttpResponse;
      }
    },
  };
}

/** What step 6 can answer on writes: 409 while the first request runs, 422 for a reused key. */
export const idempotencyStep: PipelineStep = {
  name: 'idempotency',
  answers: ({ route }) =>
    isWrite(route)
      ? {
          409: {
            description: 'A request with this Idempotency-Key is still being processed',
            schema: ErrorOut,
          },
          422: {
            description:
              'The Idempotency-Key is not 1 to 255 characters, or was used with another request (method, path, query or body)',
            schema: ValidationErrorOut,
          },
        }
      : {},
  everyAnswerHeaders: ({ route }) =>
    isWrite(route)
      ? {
          'Idempotent-Replayed': {
            description:
              '`true` when this is the stored answer to an earlier request with the same Idempotency-Key',
            schema: { type: 'string' },
            onlySometimes: true,
          },
        }
      : {},
};
