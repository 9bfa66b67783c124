/**
 * The listing admin commands (areas, listing import/show, tenant AI switch) together with the
 * HTTP reads that show their effect. Most commands run in-process through the CLI's command table;
 * the black-box ones spawn `scripts/admin/main.ts` against this test run's table.
 */

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getListing } from '../../functions/data/listings.ts';
import { parseArgs } from '../../scripts/admin/args.ts';
import { commands } from '../../scripts/admin/commands.ts';
import type { Output } from '../support/api-client.ts';
import { runAdminCli } from '../support/cli.ts';
import { afterIndexLag } from '../support/eventually.ts';
import { createTestPlaces, createTestTenant, type TestTenant, unique } from '../support/factories.ts';
import { startTestApi, type TestApi } from '../support/http.ts';

/** The listing as the API answers it. */
type Listing = Output<'getProperty'>;

const _ROOT = resolve(import.meta.dirname, '../..');

let api: TestApi;
let places: Awaited<ReturnType<typeof createTestPlaces>>;
let elsewhere: Awaited<ReturnType<typeof createTestPlaces>>;
let workDir: string;

beforeAll(async () => {
  [places, elsewhere] = await Promise.all([createTestPlaces(), createTestPlaces()]);
  api = await startTestApi();
  workDir = mkdtempSync(join(tmpdir(), 'lls-admin-'));
});
afterAll(async () => {
  await api.close();
  rmSync(workDir, { recursive: true, force: true });
});

/** What an admin command returns: the object it made or changed, by default (each test reads its fields). */
type AdminOutput = { id: string } & Record<string, unknown>;

/** Runs an admin command in-process, as `npm run -s admin -- <group> <action> ...args` would. */
async function admin<T = AdminOutput>(command: string, ...args: string[]): Promise<T> {
  const { flags } = parseArgs(args);
  const entry = commands[command];
  if (!entry) throw new Error(`no admin command ${command}`);
  return (await entry.run(flags, () => () => undefined)) as T;
}

const failure = (promise: Promise<unknown>): Promise<unknown> =>
  promise.then(
    () => undefined,
    (error: unknown) => error,
  );

/** The real admin CLI against this run's DynamoDB Local table (DYNAMODB_ENDPOINT, TABLE_NAME). */
const adminCli = (...args: string[]) => runAdminCli({ ...process.env, LOG_LEVEL: 'ERROR' }, ...args);

async function create(t: TestTenant, body: Record<string, unknown>): Promise<Listing> {
  const res = await api.call('POST', '/v1/properties', {
    key: t.key,
    body: { ai_enrichment: false, ...body },
  });
  expect(res.status, res.text).toBe(201);
  return res.body;
}

const read = async (t: TestTenant, id: string): Promise<Listing> => {
  const res = await api.call('GET', `/v1/properties/${id}`, { key: t.key });
  expect(res.status, res.text).toBe(200);
  return res.body;
};

describe('Areas: admin commands and what the API shows', () => {
  it('area create --places makes existing listings under them rule members, shown on the listing and in GET /v1/areas', async () => {
    // Prepare
    const t = await createTestTenant();
    const inside = await create(t, { title: 'Inside', place_code: places.town.code });
    const outside = await create(t, { title: 'Outside', place_code: elsewhere.town.code });
    // Act
    const area = await admin(
      'area create',
      '--tenant',
      t.slug,
      '--kind',
      'region',
      '--name',
      'Costa',
      '--places',
      `${places.region.code}`,
    );
    await afterIndexLag(); // GET /v1/areas reads the Tenant's Area index
    const list = await api.call('GET', '/v1/areas', { key: t.key });
    // Assess
    expect(area).toMatchObject({
      kind: 'region',
      name: 'Costa',
      place_codes: [places.region.code],
      listings_added: 1,
    });
    expect(area.id).toMatch(/^[0-9a-f-]{36}$/);
    expect((await read(t, inside.id)).areas).toEqual([
      { id: area.id, kind: 'region', name: 'Costa', via: 'rule' },
    ]);
    expect((await read(t, outside.id)).areas).toEqual([]);
    expect(list.status).toBe(200);
    expect(list.body).toEqual({
      data: [
        {
          id: area.id,
          kind: 'region',
          name: 'Costa',
          place_codes: [places.region.code],
          created_at: expect.any(String),
          updated_at: expect.any(String),
        },
      ],
      next_cursor: null,
    });
  });

  it('shows the Areas of a listing created or moved under a rule, and drops the rule membership when it moves away', async () => {
    // Prepare
    const t = await createTestTenant();
    const area = await admin(
      'area create',
      '--tenant',
      t.slug,
      '--kind',
      'zone',
      '--name',
      'Town',
      '--places',
      places.town.code,
    );
    await afterIndexLag(); // ops made the Area before; a new listing finds its rules through an index
    // Act
    const born = await create(t, { title: 'Born inside', place_code: places.town.code });
    const bornRead = await read(t, born.id);
    const moved = await api.call('PATCH', `/v1/properties/${born.id}`, {
      key: t.key,
      body: { place_code: elsewhere.town.code },
    });
    const back = await api.call('PATCH', `/v1/properties/${born.id}`, {
      key: t.key,
      body: { place_code: places.town.code },
    });
    // Assess
    const ref = { id: area.id, kind: 'zone', name: 'Town', via: 'rule' };
    expect(born.areas).toEqual([ref]);
    expect(bornRead.areas).toEqual([ref]);
    expect(moved.body.areas).toEqual([]);
    expect(back.body.areas).toEqual([ref]);
  });

  it('exclude-listing keeps a listing out through recomputes and its own place change; add-listing survives them', async () => {
    // Prepare
    const t = await createTestTenant();
    const excluded = await create(t, { title: 'Excluded', place_code: places.town.code });
    const added = await create(t, { title: 'Added by hand', place_code: elsewhere.town.code });
    const area = await admin(
      'area create',
      '--tenant',
      t.slug,
      '--kind',
      'neighborhood',
      '--name',
      'Old Town',
      '--places',
      places.town.code,
    );
    // Act
    const ex = await admin(
      'area exclude-listing',
      '--tenant',
      t.slug,
      '--area',
      area.id,
      '--listing',
      excluded.id,
    );
    const add = await admin('area add-listing', '--tenant', t.slug, '--area', area.id, '--listing', added.id);
    const all = await admin('area recompute', '--tenant', t.slug);
    const one = await admin('area recompute', '--tenant', t.slug, '--area', area.id);
    await api.call('PATCH', `/v1/properties/${excluded.id}`, {
      key: t.key,
      body: { place_code: places.region.code },
    });
    await api.call('PATCH', `/v1/properties/${excluded.id}`, {
      key: t.key,
      body: { place_code: places.town.code },
    });
    await api.call('PATCH', `/v1/properties/${added.id}`, {
      key: t.key,
      body: { place_code: elsewhere.region.code },
    });
    // Assess
    expect(ex).toEqual({ area_id: area.id, property_id: excluded.id, via: 'excluded' });
    expect(add).toEqual({ area_id: area.id, property_id: added.id, via: 'manual' });
    expect(all).toEqual({ areas: 1, results: [{ area_id: area.id, added: 0, removed: 0 }] });
    expect(one).toEqual({ areas: 1, results: [{ area_id: area.id, added: 0, removed: 0 }] });
    expect((await read(t, excluded.id)).areas).toEqual([
      { id: area.id, kind: 'neighborhood', name: 'Old Town', via: 'excluded' },
    ]);
    expect((await read(t, added.id)).areas).toEqual([
      { id: area.id, kind: 'neighborhood', name: 'Old Town', via: 'manual' },
    ]);
  });

  it('a community Area refuses --places and takes manual members only', async () => {
    // Prepare
    const t = await createTestTenant();
    const listing = await create(t, { title: 'Gated', place_code: places.town.code });
    // Act
    const refused = await adminCli(
      'area',
      'create',
      '--tenant',
      t.slug,
      '--kind',
      'community',
      '--name',
      'Club',
      '--places',
      places.town.code,
    );
    const community = await admin('area create', '--tenant', t.slug, '--kind', 'community', '--name', 'Club');
    const before = (await read(t, listing.id)).areas;
    await admin('area add-listing', '--tenant', t.slug, '--area', community.id, '--listing', listing.id);
    await admin('area recompute', '--tenant', t.slug);
    // Assess
    expect(refused.code).toBe(1);
    expect(refused.stdout).toBe('');
    expect(refused.stderr).toMatch(/^error: .*community/);
    expect(community).toMatchObject({ kind: 'community', place_codes: [], listings_added: 0 });
    expect(before).toEqual([]);
    expect((await read(t, listing.id)).areas).toEqual([
      { id: community.id, kind: 'community', name: 'Club', via: 'manual' },
    ]);
    await afterIndexLag(); // GET /v1/areas reads the Tenant's Area index
    const areas = await api.call('GET', '/v1/areas', { key: t.key });
    expect(areas.body.data.map((a: { name: string }) => a.name)).toEqual(['Club']);
  });

  it('refuses an unknown kind, Place, Area or listing', async () => {
    // Prepare
    const t = await createTestTenant();
    const listing = await create(t, { title: 'Somewhere' });
    // Act
    const errors = await Promise.all([
      failure(admin('area create', '--tenant', t.slug, '--kind', 'city', '--name', 'X')),
      failure(
        admin('area create', '--tenant', t.slug, '--kind', 'zone', '--name', 'X', '--places', 'NOPE-NOPE'),
      ),
      failure(
        admin('area add-listing', '--tenant', t.slug, '--area', crypto.randomUUID(), '--listing', listing.id),
      ),
      failure(admin('area create', '--tenant', t.slug, '--kind', 'zone')),
    ]);
    // Assess
    expect(errors.map((e) => (e as Error).constructor.name)).toEqual([
      'AdminInputError',
      'AdminInputError',
      'NotFoundError',
      'UsageError',
    ]);
  });
});

describe('listing import (CLI, black-box)', () => {
  it('imports a feed: JSON summary only on stdout, progress and nothing else on stderr; a re-run skips', async () => {
    // Prepare
    const t = await createTestTenant();
    const refs = Array.from({ length: 3 }, () => unique('FEED'));
    const feed = [
      ...refs.map((ref, i) => ({
        internal_ref: ref,
        title: `Feed flat ${i}`,
        price: `${200000 + i}`,
        currency: 'EUR',
        place_code: places.town.code,
        ai_enrichment: false,
      })),
      { title: 'No reference' },
      { internal_ref: unique('BAD'), title: 'Bad', latitude: 91 },
    ];
    const file = join(workDir, 'feed.json');
    writeFileSync(file, JSON.stringify(feed));
    // Act
    const first = await adminCli('listing', 'import', '--tenant', t.slug, '--file', file);
    const second = await adminCli('listing', 'import', '--tenant', t.slug, '--file', file);
    // Assess
    expect(first.code, first.stderr).toBe(0);
    const summary = JSON.parse(first.stdout);
    expect(first.stdout.trim()).toBe(JSON.stringify(summary, null, 2));
    expect(summary).toMatchObject({ total: 5, created: 3, updated: 0, skipped: 0, failed: 2 });
    expect(summary.failures.map((f: { index: number }) => f.index)).toEqual([3, 4]);
    expect(summary.failures[1].error).toMatch(/latitude/);
    expect(second.code, second.stderr).toBe(0);
    expect(JSON.parse(second.stdout)).toMatchObject({ created: 0, updated: 0, skipped: 3, failed: 2 });
    const list = await api.call('GET', '/v1/properties?limit=200', { key: t.key });
    expect(list.body.data.map((p: Listing) => [p.internal_ref, p.origin]).sort()).toEqual(
      refs.map((r) => [r, 'import']).sort(),
    );
  });

  it('lets a key’s edit of an imported listing win over the next import', async () => {
    // Prepare
    const t = await createTestTenant();
    const ref = unique('FEED');
    const file = join(workDir, `${ref}.json`);
    const item = {
      internal_ref: ref,
      title: 'Imported',
      price: '100000',
      currency: 'EUR',
      bedrooms: 2,
      ai_enrichment: false,
    };
    writeFileSync(file, JSON.stringify([item]));
    await admin('listing import', '--tenant', t.slug, '--file', file);
    await afterIndexLag(); // the list is read through an index, after the import
    const imported = (await api.call('GET', '/v1/properties', { key: t.key })).body.data[0];
    await api.call('PATCH', `/v1/properties/${imported.id}`, { key: t.key, body: { price: '90000' } });
    writeFileSync(file, JSON.stringify([{ ...item, price: '120000', bedrooms: 3 }]));
    // Act
    const summary = await admin('listing import', '--tenant', t.slug, '--file', file);
    // Assess
    expect(summary).toMatchObject({ updated: 1, failed: 0 });
    expect(await read(t, imported.id)).toMatchObject({ price: '90000', bedrooms: 3, origin: 'import' });
    const shown = await admin('listing show', '--tenant', t.slug, '--id', imported.id);
    expect(shown.manual_fields).toEqual(['price']);
  });

  it('refuses a file that is not a JSON array', async () => {
    const t = await createTestTenant();
    const file = join(workDir, 'object.json');
    writeFileSync(file, '{"internal_ref":"x"}');
    const run = await adminCli('listing', 'import', '--tenant', t.slug, '--file', file);
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toMatch(/^error: .*JSON array/);
  });
});

describe('listing show (CLI, black-box)', () => {
  it('shows the listing with who wrote it and its price history', async () => {
    // Prepare
    const t = await createTestTenant();
    const crm = await t.newKey(['properties:write'], { name: 'crm-sync' });
    const created = await create(t, { title: 'Shown', price: '500000', currency: 'EUR' });
    await api.call('PATCH', `/v1/properties/${created.id}`, { key: crm.key, body: { price: '480000' } });
    // Act
    const run = await adminCli('listing', 'show', '--tenant', t.slug, '--id', created.id);
    // Assess
    expect(run.code, run.stderr).toBe(0);
    const shown = JSON.parse(run.stdout);
    expect(shown).toMatchObject({
      id: created.id,
      title: 'Shown',
      price: '480000',
      created_by: 'test-full',
      updated_by: 'crm-sync',
      price_history: [
        { price: '500000', currency: 'EUR', changed_by: 'test-full', changed_at: created.created_at },
        { price: '480000', currency: 'EUR', changed_by: 'crm-sync', changed_at: expect.any(String) },
      ],
      enrichment: { status: null, attempts: 0 },
    });
  });
});

describe('tenant update --ai and --ai-monthly-limit-usd', () => {
  it('switches AI off (new listings are off) and on again (held ones resume as pending)', async () => {
    // Prepare
    const t = await createTestTenant();
    // Act
    const offRun = await adminCli('tenant', 'update', '--tenant', t.slug, '--ai', 'off');
    const held = (
      await api.call('POST', '/v1/properties', {
        key: t.key,
        body: { title: 'Held', place_code: places.town.code },
      })
    ).body;
    const onRun = await adminCli('tenant', 'update', '--tenant', t.slug, '--ai', 'on');
    // Assess
    expect(offRun.code, offRun.stderr).toBe(0);
    expect(JSON.parse(offRun.stdout)).toMatchObject({ slug: t.slug, ai: 'off' });
    expect(held.enrichment_status).toBe('off');
    expect(onRun.code, onRun.stderr).toBe(0);
    expect(JSON.parse(onRun.stdout)).toMatchObject({ ai: 'on', enrichments_resumed: 1 });
    expect((await read(t, held.id)).enrichment_status).toBe('pending');
  });

  it('pauses at the monthly ceiling and resumes when it is raised', async () => {
    // Prepare
    const t = await createTestTenant();
    // Act
    const capped = await admin('tenant update', '--tenant', t.slug, '--ai-monthly-limit-usd', '0');
    const paused = (await api.call('POST', '/v1/properties', { key: t.key, body: { title: 'Paused' } })).body;
    const raised = await admin('tenant update', '--tenant', t.slug, '--ai-monthly-limit-usd', '25.50');
    // Assess
    expect(capped).toMatchObject({ ai: 'on', ai_monthly_limit_usd: 0 });
    expect(paused.enrichment_status).toBe('paused');
    expect(raised).toMatchObject({ ai_monthly_limit_usd: 25.5, enrichments_resumed: 1 });
    const stored = await getListing(t.tenantId, paused.id);
    expect(stored?.enrichmentStatus).toBe('pending');
    expect(stored?.enrichmentRequestId).not.toBeUndefined();
  });

  it('refuses a bad --ai or --ai-monthly-limit-usd value', async () => {
    const t = await createTestTenant();
    const errors = await Promise.all([
      failure(admin('tenant update', '--tenant', t.slug, '--ai', 'maybe')),
      failure(admin('tenant update', '--tenant', t.slug, '--ai-monthly-limit-usd', '-3')),
    ]);
    expect(errors.map((e) => (e as Error).constructor.name)).toEqual(['UsageError', 'UsageError']);
  });
});
