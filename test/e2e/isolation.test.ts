/**
 * Tenant isolation, driven by the route table (functions/routes.ts) and the query parameters the
 * OpenAPI document lists: a new route or filter is covered without a new test.
 * - Every operation with a path id, called by Tenant B with Tenant A's id: 404, and everything
 *   Tenant A can read is unchanged (read back with A's key before and after).
 * - Every list filter that takes an id, given A's id by B: an empty page (and A's own key, given
 *   the same id, finds A's object: the filter works).
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isPublishable, type RouteDefinition } from '../../functions/pipeline/route.ts';
import { routes as allRoutes } from '../../functions/routes.ts';
import { createUnthrottledTenants, restoreBudgets, type TestTenant } from '../support/factories.ts';
import { operationsFrom } from '../support/fuzz.ts';

/**
 * The secret-key routes. Site routes (publishable key) take no Bearer key: their Tenant is the key's,
 * and test/e2e/site.test.ts covers them.
 */
const routes = allRoutes.filter((r) => !isPublishable(r));

import { createTenantObjects, requiredBodySample, type TenantObjects } from '../support/fuzz-fixtures.ts';
import { startTestApi, type TestApi } from '../support/http.ts';

const document = JSON.parse(readFileSync(resolve(import.meta.dirname, '../../docs/openapi.json'), 'utf8'));
const operations = new Map(operationsFrom(document).map((op) => [op.operationId, op]));

/** Parameter names that hold another kind's id: `owner` is an Agent. */
const ALIASES: Record<string, string> = { owner: 'agent_id', assigned_agent_id: 'agent_id' };

/**
 * THE list of routes this test cannot check as the others, each with its reason. Any other route
 * with a path parameter we have no fixture for is skipped with "no fixture for {param}" (see
 * createTenantObjects to add one).
 */
const SPECIAL: Record<string, string> = {
  upsertPropertyByRef:
    "the path holds the caller's own reference, not an id: B's PUT creates B's Property (checked below: A's is untouched and B's answer is not A's object)",
};

/**
 * Bodies for the writes, with B's own ids so that the path id is the only foreign thing; a write not
 * listed gets a body generated from its schema's required fields.
 */
function bodyFor(operationId: string, mine: TenantObjects): unknown {
  const bodies: Record<string, unknown> = {
    updateProperty: { title: 'Taken over' },
    updateLead: { status: 'closed_lost', notes: 'taken over' },
    createActivity: { kind: 'note', title: 'Planted' },
    updateActivity: { title: 'Taken over', completed: true },
    linkLeadProperty: { property_id: mine.property_id, role: 'owner' },
    putLeadCriteria: { listing_type: 'rent', min_beds: 9 },
    sendLeadMatches: { property_ids: [mine.property_id] },
    upsertPropertyByRef: { title: 'Same reference, other Tenant' },
  };
  if (operationId in bodies) return bodies[operationId];
  return requiredBodySample(operations.get(operationId)?.body, mine);
}

let api: TestApi;
let a: TestTenant;
let b: TestTenant;
let theirs: TenantObjects;
let mine: TenantObjects;

beforeAll(async () => {
  // Every probe re-reads all of A's objects to prove nothing changed: far more requests a minute than
  // a key's or a Tenant's budget, which is not what this test is about.
  [a, b] = (await createUnthrottledTenants(2)) as [TestTenant, TestTenant];
  api = await startTestApi(a.key);
  [theirs, mine] = await Promise.all([
    createTenantObjects(api, a.key, a.tenantId),
    createTenantObjects(api, b.key, b.tenantId),
  ]);
}, 180_000); // each Tenant's fixture waits for the stream consumer to log its first event
afterAll(async () => {
  await api?.close();
  restoreBudgets();
});

const paramsOf = (path: string) => [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1] as string);
const fixtureName = (param: string) => ALIASES[param] ?? param;
const fill = (path: string, objects: TenantObjects) =>
  path.replace(/\{(\w+)\}/g, (_m, name: string) => encodeURIComponent(objects[fixtureName(name)] as string));

/**
 * Everything A can read through a route with path ids (each of A's objects and its sub-resources),
 * by path: the state a foreign call must leave alone.
 */
/**
 * Fields the asynchronous workers write on their own schedule (Lead scoring, listing enrichment, the
 * webhook delivery worker's attempts at the fixture's endpoint) and the `updated_at` they move: they
 * may change between two snapshots without any request of B's (the test database and its local
 * queues are shared by every test file), so they are left out.
 */
const WORKER_FIELDS = new Set([
  'score',
  'score_tier',
  'buyer_type',
  'recommended_action',
  'score_reasons',
  'scored_at',
  'enrichment_status',
  'seo_description',
  'untranslated',
  'updated_at',
  'consecutive_failures',
  'attempts',
  'attempt_count',
  'next_attempt_at',
]);

function withoutWorkerFields(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutWorkerFields);
  if (value === null || typeof value !== 'object') return value;
  // A delivery's status moves with its attempts (pending, then succeeded or failed).
  const isDelivery = 'attempts' in value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([key]) => !WORKER_FIELDS.has(key) && !(isDelivery && key === 'status'))
      .map(([key, v]) => [key, withoutWorkerFields(v)]),
  );
}

async function snapshotOfA(): Promise<Record<string, unknown>> {
  const readable = routes.filter(
    (r: RouteDefinition) =>
      r.method === 'GET' &&
      paramsOf(r.path).length > 0 &&
      paramsOf(r.path).every((p) => fixtureName(p) in theirs),
  );
  const entries = await Promise.all(
    readable.map(async (r) => {
      const path = fill(r.path, theirs);
      const res = await api.call('GET', path, { key: a.key });
      return [path, { status: res.status, body: withoutWorkerFields(res.body) }] as const;
    }),
  );
  return Object.fromEntries(entries);
}

const withPathIds = routes.filter((r: RouteDefinition) => paramsOf(r.path).length > 0);

/**
 * A's state as the last probe left it: the probes run one after another, so one probe's "after" is
 * the next one's "before", and each probe reads A's objects once instead of twice. A probe that
 * changed A's data fails on its own comparison; the next compares against what it left.
 */
let lastSnapshotOfA: Record<string, unknown> | undefined;

describe("another Tenant's path id", () => {
  it('the route table has routes with path ids, and A can read its objects', async () => {
    // Assess: a snapshot of 404s would prove nothing.
    expect(withPathIds.length).toBeGreaterThan(10);
    const snapshot = await snapshotOfA();
    expect(Object.keys(snapshot).length).toBeGreaterThan(5);
    for (const [path, view] of Object.entries(snapshot))
      expect((view as { status: number }).status, path).toBe(200);
  });

  it.for(withPathIds.map((r) => [r.operationId, r] as const))(
    "%s by B with A's id: 404 (SPECIAL rows: as listed), A's data unchanged",
    async ([operationId, route], context) => {
      const missing = paramsOf(route.path).filter((p) => !(fixtureName(p) in theirs));
      if (missing.length) context.skip(`no fixture for path parameter ${missing.join(', ')}`);
      // Arrange
      const before = lastSnapshotOfA ?? (await snapshotOfA());
      const body = bodyFor(operationId, mine);
      // Act
      const res = await api.call(route.method, fill(route.path, theirs), {
        key: b.key,
        ...(body !== undefined ? { body } : {}),
      });
      const after = await snapshotOfA();
      lastSnapshotOfA = after;
      // Assess
      if (operationId in SPECIAL) {
        expect(res.status, res.text).toBeLessThan(500);
        expect(JSON.stringify(res.body ?? {})).not.toContain(theirs.property_id);
      } else {
        expect(res.status, res.text).toBe(404);
        expect(res.text).not.toContain(theirs[fixtureName(paramsOf(route.path)[0] as string)]);
      }
      expect(after).toEqual(before);
    },
  );
});

/** List operations and their query parameters that take an id (named `*_id`, or aliased). */
const idFilters = [...operations.values()]
  .filter((op) => op.method === 'GET' && op.pathParams.length === 0)
  .flatMap((op) =>
    op.queryParams
      .filter((q) => q.name.endsWith('_id') || q.name in ALIASES)
      .map((q) => ({ operationId: op.operationId, path: op.path, param: q.name })),
  );

describe("lists filtered by another Tenant's id", () => {
  it('there are id filters to check', () => {
    expect(idFilters.map((f) => `${f.operationId}?${f.param}`)).toEqual(
      expect.arrayContaining(['listInquiries?lead_id', 'listInquiries?property_id', 'listLeads?owner']),
    );
  });

  it.for(idFilters.map((f) => [`${f.operationId}?${f.param}`, f] as const))(
    "%s: B gets nothing for A's id, A finds its own",
    async ([, filter], context) => {
      const id = theirs[fixtureName(filter.param)];
      if (!id) context.skip(`no fixture for filter ${filter.param}`);
      const query = `${filter.path}?${filter.param}=${encodeURIComponent(id as string)}`;
      // Act
      const foreign = await api.call('GET', query, { key: b.key });
      const own = await api.call('GET', query, { key: a.key });
      // Assess
      expect(foreign.status, foreign.text).toBe(200);
      expect(foreign.body.data).toEqual([]);
      expect(own.status, own.text).toBe(200);
      expect(own.body.data.length, `${query} finds A's own object`).toBeGreaterThan(0);
    },
  );
});
