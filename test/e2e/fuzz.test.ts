/**
 * Property-based fuzzing of every operation in docs/openapi.json against the real HTTP server on
 * DynamoDB Local: valid requests get a documented status, mutated (hostile) ones never a 5xx.
 * CI: a fixed seed and a small count; `FUZZ_RUNS=<n>` (runs per property) and `FUZZ_SEED` for
 * longer or other runs. A failure prints the shrunk request.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SCOPES } from '../../functions/domain/scopes.ts';
import { loadContract } from '../support/contract.ts';
import { createTestTenant, type TestTenant } from '../support/factories.ts';
import {
  checkRequests,
  FUZZ_SEED,
  fuzzRuns,
  mutatedRequests,
  mutatedVerdict,
  operationsFrom,
  send,
  validRequests,
  validVerdict,
} from '../support/fuzz.ts';
import { createTenantObjects } from '../support/fuzz-fixtures.ts';
import type { IdPool } from '../support/fuzz-schema.ts';
import { startTestApi, type TestApi } from '../support/http.ts';

const document = JSON.parse(readFileSync(resolve(import.meta.dirname, '../../docs/openapi.json'), 'utf8'));
const operations = operationsFrom(document);
/** Valid requests' answers are checked against the same document, headers and body included. */
const contract = loadContract(document);

/**
 * CI defaults, per operation: valid and mutated runs. A fixed seed draws the same requests for any
 * count, so these are the first 4 and 8 of what a longer run sends (`FUZZ_RUNS` for more): the count
 * keeps `npm test` in its time budget, every operation is still reached by both properties.
 */
const VALID_RUNS = fuzzRuns(4);
const MUTATED_RUNS = fuzzRuns(4) * 2;
/** Generous: the bound that matters is the run count; this only stops a hung run. */
const TIMEOUT_MS = 60_000 + (VALID_RUNS + MUTATED_RUNS) * 2_000;

let api: TestApi;
let tenant: TestTenant;
let ids: IdPool;
/** Full-scope keys used in turn, with the Tenant's quota raised: requests reach the handlers, not the rate limiter. */
let keys: string[];
const tally = { requests: 0, byStatus: new Map<number, number>() };

beforeAll(async () => {
  tenant = await createTestTenant();
  api = await startTestApi(tenant.key);
  await tenant.update({ rateLimitPerMinute: 1_000_000 });
  const more = await Promise.all(Array.from({ length: 7 }, () => tenant.newKey(SCOPES)));
  keys = [tenant.key, ...more.map((k) => k.key)];
  const objects = await createTenantObjects(api, tenant.key, tenant.tenantId);
  // Id-named fields draw from the Tenant's own objects half of the time.
  ids = Object.fromEntries(Object.entries(objects).map(([name, id]) => [name, [id]]));
  ids.assigned_agent_id = [objects.agent_id as string];
  ids.property_ids = [objects.property_id as string];
}, 180_000); // the fixture waits for the stream consumer to log the Tenant's first event
afterAll(async () => {
  const statuses = [...tally.byStatus.entries()].sort(([a], [b]) => a - b).map(([s, n]) => `${s}×${n}`);
  console.info(`fuzz: ${tally.requests} requests (seed ${FUZZ_SEED}): ${statuses.join(' ')}`);
  await api?.close();
});

async function sendCounted(request: Parameters<typeof send>[1]) {
  const response = await send(api.url, request, keys[tally.requests % keys.length]);
  tally.requests += 1;
  tally.byStatus.set(response.status, (tally.byStatus.get(response.status) ?? 0) + 1);
  return response;
}

describe('fuzzing every operation of docs/openapi.json', () => {
  it('covers the whole document', () => {
    expect(operations.length).toBeGreaterThan(20);
    expect(new Set(operations.map((op) => op.operationId)).size).toBe(operations.length);
  });

  it.each(operations.map((op, index) => [op.operationId, op, index] as const))(
    '%s: valid requests get a documented answer (status, headers, body), mutated ones never a 5xx',
    async (_name, op, index) => {
      const valid = await checkRequests({
        arbitrary: validRequests(op, ids),
        send: sendCounted,
        verdict: validVerdict(op, contract),
        numRuns: VALID_RUNS,
        seed: FUZZ_SEED + index,
      });
      const mutated = await checkRequests({
        arbitrary: mutatedRequests(op, ids),
        send: sendCounted,
        verdict: mutatedVerdict,
        numRuns: MUTATED_RUNS,
        seed: FUZZ_SEED + 1000 + index,
      });
      expect([valid, mutated]).toEqual([VALID_RUNS, MUTATED_RUNS]);
    },
    TIMEOUT_MS,
  );
});
