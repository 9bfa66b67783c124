/**
 * Property-based fuzzing of every operation in docs/openapi.json against the real HTTP server on
 * DynamoDB Local: valid requests get a documented status (and an answer that passes the contract
 * check), mutated (hostile) ones never a 5xx. Two files run it: the gate's regression sample on a
 * fixed seed (test/e2e/fuzz.test.ts) and the slow run's fuzzing on a new seed each run
 * (test/slow/fuzz.test.ts). A failure prints the shrunk request and the seed that replays it.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SCOPES } from '../../functions/domain/scopes.ts';
import { loadContract } from './contract.ts';
import { createTestTenant, type TestTenant } from './factories.ts';
import {
  checkRequests,
  mutatedRequests,
  mutatedVerdictAgainst,
  operationsFrom,
  send,
  validRequests,
  validVerdict,
} from './fuzz.ts';
import { createTenantObjects } from './fuzz-fixtures.ts';
import type { IdPool } from './fuzz-schema.ts';
import { startTestApi, type TestApi } from './http.ts';

export interface FuzzSuite {
  /** The run's seed: operation `i` draws its valid requests from `seed + i`, its mutated ones from `seed + 1000 + i`. */
  seed: number;
  /** Valid requests per operation. */
  validRuns: number;
  /** Mutated requests per operation. */
  mutatedRuns: number;
  /** How to replay this run, printed with a failure and in the summary (`FUZZ_SEED=… npm run test:slow`). */
  replay: string;
}

const document = JSON.parse(readFileSync(resolve(import.meta.dirname, '../../docs/openapi.json'), 'utf8'));
const operations = operationsFrom(document);
/** Valid requests' answers are checked against the same document, headers and body included. */
const contract = loadContract(document);

/** Declares the fuzz tests of every operation: one test per operation, both properties. */
export function describeFuzzOfEveryOperation(suite: FuzzSuite): void {
  const { seed, validRuns, mutatedRuns } = suite;
  /** Generous: the bound that matters is the run count; this only stops a hung run. */
  const timeoutMs = 60_000 + (validRuns + mutatedRuns) * 2_000;

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
    console.info(`fuzz: ${tally.requests} requests (seed ${seed}; ${suite.replay}): ${statuses.join(' ')}`);
    await api?.close();
  });

  async function sendCounted(request: Parameters<typeof send>[1]) {
    const response = await send(api.url, request, keys[tally.requests % keys.length]);
    tally.requests += 1;
    tally.byStatus.set(response.status, (tally.byStatus.get(response.status) ?? 0) + 1);
    return response;
  }

  describe(`fuzzing every operation of docs/openapi.json (seed ${seed}, ${validRuns} valid and ${mutatedRuns} mutated requests each)`, () => {
    it('covers the whole document', () => {
      expect(operations.length).toBeGreaterThan(20);
      expect(new Set(operations.map((op) => op.operationId)).size).toBe(operations.length);
    });

    it.each(operations.map((op, index) => [op.operationId, op, index] as const))(
      '%s: valid requests get a documented answer (status, headers, body), mutated ones never a 5xx nor an undocumented answer',
      async (_name, op, index) => {
        const valid = await checkRequests({
          arbitrary: validRequests(op, ids),
          send: sendCounted,
          verdict: validVerdict(op, contract),
          numRuns: validRuns,
          seed: seed + index,
          replay: suite.replay,
        });
        const mutated = await checkRequests({
          arbitrary: mutatedRequests(op, ids),
          send: sendCounted,
          verdict: mutatedVerdictAgainst(contract),
          numRuns: mutatedRuns,
          seed: seed + 1000 + index,
          replay: suite.replay,
        });
        expect([valid, mutated]).toEqual([validRuns, mutatedRuns]);
      },
      timeoutMs,
    );
  });
}
