/**
 * The Lambda side of malformed path encodings: the handlers invoked directly with the API Gateway
 * event, as Lambda invokes them, carrying path parameters a gateway might pass: the segment as
 * sent (it could not decode it) or decoded leniently into a lone surrogate or U+FFFD.
 */
import { describe, expect, it } from 'vitest';
import { handler as getAgent } from '../../functions/http/agents/get-agent.ts';
import { handler as getProperty } from '../../functions/http/properties/get-property.ts';
import { handler as upsertByRef } from '../../functions/http/properties/upsert-property-by-ref.ts';
import { routeFor } from '../../functions/routes.ts';
import { httpEvent, lambdaContext } from '../../scripts/local/lambda-events.ts';
import { createTestTenant } from '../support/factories.ts';

type Handler = typeof getProperty;

async function invoke(
  handler: Handler,
  operationId: Parameters<typeof routeFor>[0],
  key: string,
  pathParameters: Record<string, string>,
  body?: unknown,
) {
  const event = httpEvent({
    route: routeFor(operationId),
    rawPath: '/v1/test',
    rawQueryString: '',
    headers: {
      authorization: `Bearer ${key}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    query: {},
    pathParameters,
    body: body === undefined ? undefined : JSON.stringify(body),
    sourceIp: '127.0.0.1',
    protocol: 'HTTP/1.1',
  });
  const response = await handler(event, lambdaContext(operationId, event.requestContext.requestId));
  return { status: response.statusCode, body: response.body ? JSON.parse(response.body) : undefined };
}

/** Raw (undecodable) and leniently decoded forms of the fuzzer's malformed encodings. */
const MALFORMED = {
  'invalid escape, raw': '%ZZ',
  'cut escape, raw': '%E0%A4%A',
  'encoded surrogate, raw': '%ED%A0%80',
  'overlong UTF-8, raw': '%C0%AE%C0%AE',
  'lone surrogate, decoded': '\uD800',
  'lone low surrogate inside text, decoded': 'ref-\uDC00-x',
  'replacement character, decoded leniently': '\uFFFD\uFFFD',
};

describe('a path parameter that is not text, invoked as Lambda', () => {
  it.each(Object.entries(MALFORMED))('%s: 422 at the parameter, never 5xx', async (_name, value) => {
    // Prepare
    const tenant = await createTestTenant();
    // Act
    const read = await invoke(getProperty, 'getProperty', tenant.key, { property_id: value });
    const agent = await invoke(getAgent, 'getAgent', tenant.key, { agent_id: value });
    const upsert = await invoke(
      upsertByRef,
      'upsertPropertyByRef',
      tenant.key,
      { internal_ref: value },
      {
        title: 'Never written',
      },
    );
    // Assess
    for (const res of [read, agent, upsert]) {
      expect(res.status).toBe(422);
      expect(res.body.detail).toHaveLength(1);
      expect(res.body.detail[0].type).toBe('encoding_invalid');
    }
    expect(read.body.detail[0].loc).toEqual(['path', 'property_id']);
    expect(upsert.body.detail[0].loc).toEqual(['path', 'internal_ref']);
    expect(upsert.body.detail[0].msg).toMatch(/percent-encoding|UTF-8/);
  });

  it('a decoded value with a literal % escape that spells UTF-8 is read as text, never decoded twice', async () => {
    // Prepare
    const tenant = await createTestTenant();
    // Act
    const res = await invoke(
      upsertByRef,
      'upsertPropertyByRef',
      tenant.key,
      { internal_ref: 'REF%41-1' },
      {
        title: 'Percent in the reference',
      },
    );
    // Assess
    expect(res.status).toBe(201);
    expect(res.body.internal_ref).toBe('REF%41-1');
  });
});
