import { describe, expect, it } from 'vitest';
import { checkResponse, responseProblems } from '../support/contract.ts';

/** Headers a GET answer that passed the rate limit carries. */
const servedHeaders = {
  'content-type': 'application/json',
  'x-request-id': 'req-1',
  ratelimit: '"key-minute";r=599;t=60',
  'ratelimit-policy': '"key-minute";q=600;w=60',
  'x-ratelimit-limit': '600',
  'x-ratelimit-remaining': '599',
  'x-ratelimit-reset': '60',
};

describe('the contract check (docs/openapi.json)', () => {
  it('accepts a documented 404 with its body and headers', () => {
    expect(
      responseProblems('GET', '/v1/leads/0f8fad5b-d9cb-469f-a165-70867728950e', 404, servedHeaders, {
        detail: 'No lead with this id in this tenant',
      }),
    ).toEqual([]);
  });

  it('refuses a status the operation does not document', () => {
    expect(() => checkResponse('GET', '/v1/leads', 418, servedHeaders, { detail: 'teapot' })).toThrow(
      /status 418 is not documented for GET \/v1\/leads/,
    );
  });

  it('refuses a body that breaks the schema', () => {
    const problems = responseProblems(
      'GET',
      '/v1/leads/0f8fad5b-d9cb-469f-a165-70867728950e',
      404,
      servedHeaders,
      {
        detail: 42,
      },
    );
    expect(problems.join('\n')).toMatch(/body\/detail must be string/);
  });

  it('refuses an answer without a required header', () => {
    const { 'x-request-id': _dropped, ...headers } = servedHeaders;
    expect(
      responseProblems('GET', '/v1/leads?limit=1', 200, headers, { data: [], next_cursor: null }),
    ).toEqual(['GET /v1/leads?limit=1 → 200: the required header X-Request-Id is missing']);
  });

  it('refuses a header the document does not name, and a malformed documented one', () => {
    const problems = responseProblems(
      'GET',
      '/v1/leads',
      200,
      { ...servedHeaders, 'x-ratelimit-reset': 'soon', 'x-debug': '1' },
      { data: [], next_cursor: null },
    );
    expect(problems).toEqual([
      'GET /v1/leads → 200: header X-RateLimit-Reset is "soon", not an integer',
      'GET /v1/leads → 200: the header x-debug is not documented',
    ]);
  });

  it('requires WWW-Authenticate on a 401 and Retry-After on a 429', () => {
    expect(
      responseProblems('GET', '/v1/leads', 401, { 'x-request-id': 'r' }, { detail: 'Invalid API key' }),
    ).toEqual(['GET /v1/leads → 401: the required header WWW-Authenticate is missing']);
    expect(
      responseProblems('GET', '/v1/leads', 429, servedHeaders, { detail: 'Rate limit exceeded' }),
    ).toEqual(['GET /v1/leads → 429: the required header Retry-After is missing']);
  });

  it('finds the operation of a templated path, and ignores the query', () => {
    expect(
      responseProblems(
        'GET',
        '/v1/leads/0f8fad5b-d9cb-469f-a165-70867728950e/activities?limit=5',
        200,
        servedHeaders,
        {
          data: [],
          next_cursor: null,
        },
      ),
    ).toEqual([]);
  });

  it('reads a path as a server does: a dot segment is removed before the operation is found', () => {
    // `/v1/site/locations/.` is `/v1/site/locations/`, which no operation serves.
    expect(responseProblems('GET', '/v1/site/locations/.?key=k', 404, {}, { detail: 'Not Found' })).toEqual(
      [],
    );
    // `/v1/leads/x/..` is `/v1/leads/`: still no operation, so a 200 breaks the document.
    expect(responseProblems('GET', '/v1/leads/x/..', 200, {}, {})).toEqual([
      'GET /v1/leads/x/.. → 200: no documented operation serves this request',
    ]);
  });

  it('lets the local server answer 404 for a path no operation serves, and nothing else', () => {
    expect(responseProblems('GET', '/v2/nothing', 404, {}, { detail: 'Not Found' })).toEqual([]);
    expect(responseProblems('GET', '/v2/nothing', 200, {}, {})).toEqual([
      'GET /v2/nothing → 200: no documented operation serves this request',
    ]);
  });
});
