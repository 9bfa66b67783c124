/**
 * A generic client, as an integrator writes one from docs/openapi.json: one paging loop and
 * one idempotency wrapper for every operation. Driven by the route table (functions/routes.ts) and the
 * document, so a new route is covered without a new test:
 * - every cursor-paged list is walked with the same loop (limit 2, cursor until null) while an item
 *   of its first page is changed, and checked against the order its document states (least recently
 *   updated first, a changed item moving to the end; or the order stated per list);
 * - every write is sent twice with one Idempotency-Key (the second is a replay: same status and body,
 *   `Idempotent-Replayed: true`), then a third time with its body or query changed (refused, 422).
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { Agent as HttpAgent, fetch as undiciFetch } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TURNSTILE_DUMMY_TOKEN } from '../../functions/kernel/ports/turnstile.ts';
import { isPublishable, isWrite, type RouteDefinition } from '../../functions/pipeline/route.ts';
import { routes } from '../../functions/routes.ts';
import { issueSiteKey } from '../../functions/services/site-keys.ts';
import { pngFile } from '../../scripts/local/image-files.ts';
import { afterIndexLag } from '../support/eventually.ts';
import {
  createTestPlaces,
  createUnthrottledTenants,
  restoreBudgets,
  type TestTenant,
  unique,
} from '../support/factories.ts';
import { operationsFrom } from '../support/fuzz.ts';
import {
  confirmIntoGallery,
  createTenantObjects,
  requiredBodySample,
  type TenantObjects,
} from '../support/fuzz-fixtures.ts';
import { startTestApi, type TestApi } from '../support/http.ts';

const document = JSON.parse(readFileSync(resolve(import.meta.dirname, '../../docs/openapi.json'), 'utf8'));
const operations = new Map(operationsFrom(document).map((op) => [op.operationId, op]));
const table: readonly RouteDefinition[] = routes;

/** Every list a client pages with a cursor: its query takes `cursor` (docs/getting-started.md, Pages). */
const pagedLists = table.filter(
  (r) => r.method === 'GET' && operations.get(r.operationId)?.queryParams.some((q) => q.name === 'cursor'),
);

type Item = Record<string, unknown> & { id?: string };

/**
 * The orders a list's 200 description may state, and what each promises a pass that changes an
 * item: least recently updated first, the changed item moves to the end (seen again there); by creation
 * it keeps its place (seen once). A list stating none of these fails: the document must say.
 */
const STATED_ORDERS = [
  { says: /least recently updated first/, field: 'updated_at', direction: 1, changedMovesToEnd: true },
  { says: /oldest first/, field: 'created_at', direction: 1, changedMovesToEnd: false },
  {
    says: /newest first by \(created_at, id\)/,
    field: 'created_at',
    direction: -1,
    changedMovesToEnd: false,
  },
  { says: /in code order/, field: 'code', direction: 1, changedMovesToEnd: false },
] as const;

function statedOrder(route: RouteDefinition) {
  const description = document.paths[route.path].get.responses['200'].description as string;
  const order = STATED_ORDERS.find((o) => o.says.test(description));
  if (!order) throw new Error(`${route.operationId}: the document states no order ("${description}")`);
  return order;
}

/** The position of an item in its list's order: (field, id), or the field alone for items without id. */
const positionOf = (item: Item, field: string): [string, string] => [
  String(item[field]),
  String(item.id ?? ''),
];
const compare = (a: [string, string], b: [string, string]) =>
  a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : 0;
const identity = (item: Item) => String(item.id ?? item.code);

/** The last static segment of a path: `/v1/leads/{lead_id}/activities` → `activities`. */
const lastWord = (path: string) =>
  path
    .split('/')
    .filter((s) => s && !s.startsWith('{'))
    .at(-1);

/**
 * The write that changes one item of a list: a PATCH of the item's own path, or a POST action on it
 * (`…/{delivery_id}:redeliver`), whose last parameter is the item's id and whose resource word is the
 * list's (`PATCH /v1/activities/{activity_id}` for `GET /v1/leads/{lead_id}/activities`).
 */
function changeRouteFor(list: RouteDefinition): RouteDefinition | undefined {
  return table.find((r) => {
    const last = /\/([^/{]+)\/\{(\w+)\}(:[\w-]+)?$/.exec(r.path);
    if (!last || !(r.method === 'PATCH' || (r.method === 'POST' && last[3]))) return false;
    return !isPublishable(r) && last[1] === lastWord(list.path);
  });
}

/** Harmless changes, by operation; any other change route gets a body of its required fields. */
const CHANGE_BODIES: Record<string, unknown> = {
  updateProperty: { title: 'Changed while paging' },
  updateLead: { notes: 'changed while paging' },
  updateActivity: { title: 'Changed while paging' },
  updateWebhook: { enabled: true },
};

let api: TestApi;
/** Tenant A's lists are walked; Tenant B takes the writes (some archive or delete its objects). */
let a: TestTenant;
let b: TestTenant;
let walked: TenantObjects;
let written: TenantObjects;
let siteKey: string;
const PAGE = 'https://www.agency.example';

const freshConnections = new HttpAgent({ pipelining: 0 });

/** A photo uploaded to the listing through the interface (mint, PUT to storage); its object_key. */
async function uploadedPhoto(key: string, propertyId: string): Promise<string> {
  const png = pngFile(40, 30);
  const minted = await api.call('POST', `/v1/properties/${propertyId}/images/uploads`, {
    key,
    body: { content_type: 'image/png', size_bytes: png.length },
  });
  if (minted.status !== 201) throw new Error(`fixture upload → ${minted.status} ${minted.text}`);
  const { 'Content-Length': _length, ...headers } = minted.body.headers;
  const put = await undiciFetch(minted.body.url, {
    method: 'PUT',
    headers,
    body: png,
    dispatcher: freshConnections,
  });
  if (put.status !== 200) throw new Error(`fixture upload PUT → ${put.status}`);
  return minted.body.object_key;
}

/** Tenant B's objects for the writes: the shared fixture, a live listing's slug and a gallery photo. */
async function writeFixtures(key: string, tenantId: string): Promise<TenantObjects> {
  const objects = await createTenantObjects(api, key, tenantId);
  const places = await createTestPlaces();
  const live = await api.call('POST', '/v1/properties', {
    key,
    // On the website and within the fixture Lead's criteria (sale, beds): a current match of it.
    body: { title: `Live flat ${unique()}`, place_code: places.town.code, listing_type: 'sale', bedrooms: 3 },
  });
  const photo = await confirmIntoGallery(
    api,
    key,
    tenantId,
    objects.property_id as string,
    await uploadedPhoto(key, objects.property_id as string),
  );
  return {
    ...objects,
    slug: live.body.slug,
    live_property_id: live.body.id,
    image_id: photo.id,
    object_key: await uploadedPhoto(key, objects.property_id as string),
  };
}

beforeAll(async () => {
  // A pass with limit 2 over every list, and every write three times: more than a minute's budget.
  [a, b] = (await createUnthrottledTenants(2)) as [TestTenant, TestTenant];
  api = await startTestApi(a.key);
  // Three of each of A's objects, so that every list takes more than one page of 2.
  walked = await createTenantObjects(api, a.key, a.tenantId);
  await createTenantObjects(api, a.key, a.tenantId);
  await createTenantObjects(api, a.key, a.tenantId);
  for (let i = 0; i < 2; i++) {
    await api.call('POST', `/v1/leads/${walked.lead_id}/activities`, {
      body: { kind: 'note', title: `n${i}` },
    });
    await api.call('POST', `/v1/webhooks/${walked.endpoint_id}/test`);
  }
  written = await writeFixtures(b.key, b.tenantId);
  siteKey = (await issueSiteKey({ tenantId: b.tenantId, origins: PAGE })).key;
  // The lists read indexes that may lag the writes above by a moment, as on AWS: the Places B's
  // fixture made (the catalogue is shared by every Tenant) would otherwise be missing from the walk.
  await afterIndexLag();
}, 300_000); // each createTenantObjects waits for the stream consumer to log an event
afterAll(async () => {
  await api?.close();
  await freshConnections.close();
  restoreBudgets();
});

const fill = (path: string, objects: TenantObjects) =>
  path.replace(/\{(\w+)\}/g, (_m, name: string) => {
    const value = objects[name];
    if (value === undefined) throw new Error(`no fixture for path parameter ${name}`);
    return encodeURIComponent(value);
  });

/** Every item of a list, by the generic loop: limit 2, the cursor until it is null. */
async function walk(path: string, between: (page: number, items: Item[]) => Promise<void> = async () => {}) {
  const seen: Item[] = [];
  let cursor: string | null = null;
  for (let page = 0; page === 0 || cursor; page++) {
    const res = await api.call(
      'GET',
      `${path}?limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
    );
    expect(res.status, `${path}: ${res.text}`).toBe(200);
    seen.push(...res.body.data);
    cursor = res.body.next_cursor;
    await between(page, res.body.data);
  }
  return seen;
}

describe('a generic paging loop over every paged list of the route table', () => {
  it('the route table has paged lists, and the document states an order for each', () => {
    expect(pagedLists.length).toBeGreaterThan(5);
    for (const list of pagedLists) expect(() => statedOrder(list)).not.toThrow();
  });

  it.for(pagedLists.map((r) => [r.operationId, r] as const))(
    '%s: limit 2 until next_cursor is null, an item changed mid-walk: in the stated order, nothing skipped',
    async ([, list]) => {
      // Prepare
      const order = statedOrder(list);
      const path = fill(list.path, walked);
      const before = await walk(path);
      expect(before.length, 'at least two pages of 2').toBeGreaterThan(2);
      const change = changeRouteFor(list);
      let changedId: string | undefined;
      // Act
      const seen = await walk(path, async (page, items) => {
        if (page !== 0 || !change) return;
        const item = items[0] as Item;
        changedId = item.id;
        const target = change.path.replace(/\{(\w+)\}(?=[^{]*$)/, String(item.id));
        const body =
          CHANGE_BODIES[change.operationId] ??
          requiredBodySample(operations.get(change.operationId)?.body, walked);
        const res = await api.call(change.method, fill(target, walked), body === undefined ? {} : { body });
        expect(res.status, `${change.operationId}: ${res.text}`).toBeLessThan(300);
        // The list reads an index, which may not show the moved item at its new place yet (as on
        // AWS): the walk goes on once it has.
        await afterIndexLag();
      });
      // Assess: in order (a changed item seen again is later still), and a full pass skips nothing.
      for (let i = 1; i < seen.length; i++) {
        const step = compare(
          positionOf(seen[i - 1] as Item, order.field),
          positionOf(seen[i] as Item, order.field),
        );
        expect(
          step * order.direction,
          `${list.operationId}: items ${i - 1} and ${i} out of order`,
        ).toBeLessThan(0);
      }
      const ids = seen.map(identity);
      for (const item of before) expect(ids, `${list.operationId} skipped an item`).toContain(identity(item));
      if (changedId === undefined) {
        expect(new Set(ids).size, 'nothing changed: nothing repeats').toBe(ids.length);
      } else if (order.changedMovesToEnd) {
        expect(
          ids.filter((id) => id === changedId),
          'the changed item moved to the end',
        ).toHaveLength(2);
        expect(ids.at(-1)).toBe(changedId);
      } else {
        expect(
          ids.filter((id) => id === changedId),
          'the changed item kept its place',
        ).toHaveLength(1);
        expect(new Set(ids).size).toBe(ids.length);
      }
    },
  );
});

/** Bodies that make each write succeed on Tenant B's objects; any other write gets its required fields. */
function writeBody(operationId: string, objects: TenantObjects): unknown {
  const tag = unique();
  const bodies: Record<string, unknown> = {
    createProperty: { title: `Replayed flat ${tag}` },
    updateProperty: { title: 'Replayed title' },
    upsertPropertyByRef: { title: 'Replayed by reference' },
    importPropertyImage: { url: `https://93.184.216.34/photos/${tag}.jpg` },
    createPropertyImageUpload: { content_type: 'image/png', size_bytes: 1000 },
    confirmPropertyImage: { object_key: objects.object_key },
    updatePropertyImage: { sort_order: 5 },
    createLead: { name: 'Replayed Lead', email: `${tag}@example.com` },
    ingestLead: { source: 'crm', type: 'note', person: { name: 'Replayed', email: `${tag}@example.com` } },
    updateLead: { notes: 'replayed' },
    createActivity: { kind: 'note', title: 'Replayed' },
    updateActivity: { title: 'Replayed' },
    linkLeadProperty: { property_id: objects.property_id, role: 'interested' },
    putLeadCriteria: { listing_type: 'sale', min_beds: 2 },
    sendLeadMatches: { property_ids: [objects.live_property_id] },
    createWebhookSubscription: { url: `https://93.184.216.34/hooks/${tag}`, events: ['lead.created'] },
    updateWebhook: { enabled: true },
    recoverWebhookDeliveries: { since: new Date(Date.now() - 3_600_000).toISOString() },
    createSiteLead: {
      name: 'Replayed Visitor',
      email: `${tag}@example.com`,
      message: 'Still available?',
      turnstile: TURNSTILE_DUMMY_TOKEN,
    },
  };
  if (operationId in bodies) return bodies[operationId];
  return requiredBodySample(operations.get(operationId)?.body, objects);
}

/** Writes that archive or delete run last: the others still find their objects. */
const writes = table
  .filter(isWrite)
  .toSorted((x, y) => Number(x.method === 'DELETE') - Number(y.method === 'DELETE'));

describe('a generic idempotency wrapper over every write of the route table', () => {
  it.for(writes.map((r) => [r.operationId, r] as const))(
    '%s: the same Idempotency-Key replays the first answer; with a changed request it is refused (422)',
    async ([operationId, route]) => {
      // Prepare
      const site = isPublishable(route);
      const query = site ? `?key=${siteKey}&origin=${encodeURIComponent(PAGE)}` : '';
      const path = fill(route.path, written) + query;
      const body = writeBody(operationId, written);
      const key = randomUUID();
      const send = (target: string, payload: unknown) =>
        api.call(route.method, target, {
          key: site ? null : b.key,
          ...(payload !== undefined ? { body: payload } : {}),
          headers: { 'idempotency-key': key, ...(site ? { origin: PAGE } : {}) },
        });
      // Act
      const first = await send(path, body);
      const replay = await send(path, body);
      const changed =
        body !== undefined && typeof body === 'object' && !Array.isArray(body)
          ? await send(path, { ...(body as object), changed_by_the_client: true })
          : await send(`${path}${query ? '&' : '?'}changed=1`, body);
      // Assess
      expect(first.status, first.text).toBeLessThan(300);
      expect(first.headers.get('idempotent-replayed')).toBeNull();
      expect(replay.status).toBe(first.status);
      expect(replay.headers.get('idempotent-replayed')).toBe('true');
      expect(replay.text).toBe(first.text);
      expect(changed.status, changed.text).toBe(422);
      expect(changed.body.detail[0]).toMatchObject({
        loc: ['header', 'Idempotency-Key'],
        type: 'idempotency_key_reused',
      });
    },
  );
});
