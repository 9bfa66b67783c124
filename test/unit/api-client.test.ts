import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import * as z from 'zod/mini';
import type { Operation } from '../../functions/pipeline/operation.ts';
import { routeFor } from '../../functions/routes.ts';
import { locs, pathOf, SUCCESS_BODIES, type TypedOperation } from '../support/api-client.ts';

const ROOT = resolve(import.meta.dirname, '../..');

/** A schema as the document shows an answer of it. */
const asJsonSchema = (schema: z.ZodMiniType) =>
  z.toJSONSchema(schema, { io: 'output', unrepresentable: 'any' });

/** The schemas of the success answers (2xx with a body) the handler of `op` declares. */
async function declaredSuccessBodies(op: TypedOperation): Promise<z.ZodMiniType[]> {
  const url = pathToFileURL(resolve(ROOT, 'functions/http', routeFor(op).entry)).href;
  const { operation } = (await import(/* @vite-ignore */ url)) as { operation: Operation };
  return Object.entries(operation.spec.responses)
    .filter(([status, response]) => Number(status) < 300 && response.schema !== undefined)
    .map(([, response]) => response.schema as z.ZodMiniType);
}

describe('the typed API client', () => {
  it("types each operation's success body with the schema its handler answers with", async () => {
    // Act
    const differing: string[] = [];
    for (const op of Object.keys(SUCCESS_BODIES) as TypedOperation[]) {
      const declared = await declaredSuccessBodies(op);
      const typed = asJsonSchema(SUCCESS_BODIES[op]);
      if (declared.length === 0 || declared.some((schema) => !isDeepEqual(asJsonSchema(schema), typed))) {
        differing.push(op);
      }
    }
    // Assess
    expect(differing, 'fix SUCCESS_BODIES in test/support/api-client.ts').toEqual([]);
  });

  it('fills path parameters as single encoded segments, keeps action suffixes, and adds the query', () => {
    expect(pathOf('getLead', { path: { lead_id: 'a/b' } })).toBe('/v1/leads/a%2Fb');
    expect(pathOf('redeliverWebhookDelivery', { path: { endpoint_id: 'e', delivery_id: 'd' } })).toMatch(
      /^\/v1\/webhooks\/e\/deliveries\/d:redeliver$/,
    );
    expect(pathOf('listLeads', { query: { limit: 5, q: 'a b', status: undefined } })).toBe(
      '/v1/leads?limit=5&q=a+b',
    );
    expect(() => pathOf('getLead')).toThrow(/lead_id/);
  });

  it('reads the places a 422 names from its body or from the answer', () => {
    const body = { detail: [{ loc: ['body', 'email'], msg: 'm', type: 't' }] };
    expect(locs(body)).toEqual([['body', 'email']]);
    expect(locs({ body })).toEqual([['body', 'email']]);
    expect(() => locs({ body: { detail: 'Not found' } })).toThrow(/not a 422/);
  });
});

function isDeepEqual(a: unknown, b: unknown): boolean {
  try {
    expect(a).toEqual(b);
    return true;
  } catch {
    return false;
  }
}
