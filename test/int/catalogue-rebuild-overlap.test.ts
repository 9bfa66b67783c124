/**
 * Two catalogue rebuilds of one Tenant at once (services/catalogue-rebuild.ts), on DynamoDB Local and
 * an S3 that honours conditional writes as Amazon S3 does. Runs overlap on AWS: the schedule delivers
 * at least once, a failed asynchronous invocation is retried while the next minute's run starts, and
 * a run goes on for 50 s. The run that read the older snapshot must never be the one whose snapshot
 * stays: its write is refused (412), and it marks the Tenant due again.
 *
 * The local S3 stand-in (s3rver) ignores If-Match and If-None-Match, so S3 is taken at the SDK's edge
 * here (aws-sdk-client-mock): one object per key with its ETag, PutObject refused 412
 * PreconditionFailed when its condition does not hold, as AWS documents for conditional writes. The
 * adapter (S3CatalogueStore) and everything above it run as deployed.
 */
import { createHash, randomUUID } from 'node:crypto';
import {
  GetObjectCommand,
  NoSuchKey,
  PutObjectCommand,
  type PutObjectCommandInput,
  S3Client,
  S3ServiceException,
} from '@aws-sdk/client-s3';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { dueCatalogueRebuilds, markCatalogueRebuildDue } from '../../functions/data/catalogue-rebuilds.ts';
import {
  catalogueKey,
  S3CatalogueStore,
  setCatalogueStore,
} from '../../functions/kernel/ports/catalogue-store.ts';
import type { Caller } from '../../functions/services/caller.ts';
import { rebuildCatalogueSnapshot, rebuildDueTenant } from '../../functions/services/catalogue-rebuild.ts';
import { decodeSnapshot } from '../../functions/services/catalogue-snapshot.ts';
import { createListing, writerOf } from '../../functions/services/listings.ts';
import { createTenantFromAdmin } from '../../functions/services/tenants.ts';
import { localCatalogueStore } from '../../scripts/local/adapters/local-catalogue-store.ts';
import { asFunction, WORKER_ENTRIES } from '../support/aws-operations.ts';
import { afterIndexLag } from '../support/eventually.ts';
import { createTestPlaces, unique } from '../support/factories.ts';

const BUCKET = 'catalogue-overlap-test';

/** Amazon S3 at the SDK's edge: the objects by key, each with its ETag (quoted, as S3 sends it). */
const objects = new Map<string, { body: Buffer; etag: string }>();
/** PutObjects of a key held until released, to make one run's write arrive after another's. */
const held = new Map<string, { reached: () => void; release: Promise<void> }>();
const s3 = mockClient(S3Client);

function preconditionFailed(): S3ServiceException {
  return new S3ServiceException({
    name: 'PreconditionFailed',
    $fault: 'client',
    $metadata: { httpStatusCode: 412 },
    message: 'At least one of the pre-conditions you specified did not hold',
  });
}

/** S3's PutObject with its conditional headers (If-Match: that ETag; If-None-Match: *: no object). */
async function putObject(input: PutObjectCommandInput) {
  const key = input.Key as string;
  const hold = held.get(key);
  if (hold) {
    held.delete(key);
    hold.reached();
    await hold.release;
  }
  const current = objects.get(key);
  if (input.IfNoneMatch === '*' && current) throw preconditionFailed();
  if (input.IfMatch !== undefined) {
    if (!current) {
      throw new NoSuchKey({
        message: 'The specified key does not exist.',
        $metadata: { httpStatusCode: 404 },
      });
    }
    if (input.IfMatch !== current.etag) throw preconditionFailed();
  }
  const body = Buffer.from(input.Body as Uint8Array);
  const etag = `"${createHash('md5').update(body).digest('hex')}"`;
  objects.set(key, { body, etag });
  return { ETag: etag };
}

/** Holds the next PutObject of `key`: `reached` resolves once it arrives, `release` lets it land. */
function holdNextPut(key: string): { reached: Promise<void>; release: () => void } {
  let release = () => {};
  let reached = () => {};
  const reachedPromise = new Promise<void>((resolve) => {
    reached = resolve;
  });
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  held.set(key, { reached, release: released });
  return { reached: reachedPromise, release };
}

let placeCode: string;
beforeAll(async () => {
  placeCode = (await createTestPlaces()).town.code;
  s3.on(GetObjectCommand).callsFake(async (input: { Key: string }) => {
    const object = objects.get(input.Key);
    if (!object) {
      throw new NoSuchKey({
        message: 'The specified key does not exist.',
        $metadata: { httpStatusCode: 404 },
      });
    }
    const bytes = new Uint8Array(object.body);
    return { Body: { transformToByteArray: async () => bytes }, ETag: object.etag };
  });
  s3.on(PutObjectCommand).callsFake(putObject);
  setCatalogueStore(
    new S3CatalogueStore({
      bucket: BUCKET,
      client: { region: 'eu-west-1', credentials: { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'secret' } },
    }),
  );
});
afterAll(() => {
  s3.restore();
  setCatalogueStore(localCatalogueStore());
});
beforeEach(() => {
  held.clear();
});

async function newCaller(): Promise<Caller> {
  const tenant = await createTenantFromAdmin({ slug: unique('overlap'), name: 'Overlap Realty' });
  return {
    tenant,
    apiKey: { id: randomUUID(), name: 'int-key', scopes: ['properties:write'], tenantId: tenant.tenantId },
  };
}

async function addListing(caller: Caller, title: string) {
  const { record } = await createListing(
    writerOf(caller),
    {
      title,
      place_code: placeCode,
      listing_type: 'sale',
      price: '250000',
      currency: 'EUR',
      ai_enrichment: false,
    },
    undefined,
  );
  return record;
}

/** The ids of the listings in the Tenant's stored snapshot. */
function storedIds(tenantId: string): string[] {
  const object = objects.get(catalogueKey(tenantId));
  if (!object) return [];
  return decodeSnapshot(tenantId, object.body)
    .snapshot.listings.map((l) => l.id)
    .sort();
}

/** Whether the Tenant has a marker due by a minute from now (a consistent Query of the markers). */
async function markedDue(tenantId: string): Promise<boolean> {
  return (await dueCatalogueRebuilds(new Date(Date.now() + 60_000).toISOString())).includes(tenantId);
}

/** One Tenant's part of a scheduled run, as the rebuilder's function runs it. */
const rebuildAsWorker = asFunction(WORKER_ENTRIES.catalogueRebuild, rebuildDueTenant);

describe('two catalogue rebuilds of one Tenant at once', () => {
  it.each([
    ['over a stored snapshot', true],
    ['when the Tenant had none yet', false],
  ])(
    '%s: the older run, finishing last, leaves the newer snapshot and marks the Tenant due again',
    async (_case, withSnapshot) => {
      // Prepare: a Tenant with one listing (and its snapshot), due a rebuild.
      const caller = await newCaller();
      const tenantId = caller.tenant.tenantId;
      const first = await addListing(caller, 'Listed first');
      await afterIndexLag();
      if (withSnapshot) await rebuildCatalogueSnapshot(tenantId, { fromTable: true });
      await markCatalogueRebuildDue(tenantId, new Date(Date.now() - 1_000).toISOString());

      // Act: run A reads and builds, and its write is delayed; meanwhile a listing is added, marks the
      // Tenant due (as the stream consumer does), and run B rebuilds it from start to end.
      const delayed = holdNextPut(catalogueKey(tenantId));
      const runA = rebuildAsWorker(tenantId, new Date());
      await delayed.reached;
      const second = await addListing(caller, 'Listed while run A was writing');
      await afterIndexLag();
      await markCatalogueRebuildDue(tenantId, new Date(Date.now() - 1_000).toISOString());
      const runB = await rebuildAsWorker(tenantId, new Date());
      const afterB = storedIds(tenantId);
      delayed.release();
      const resultA = await runA;

      // Assess: B's snapshot stays, with both listings; A's write was refused, and the Tenant is due.
      expect(runB).toMatchObject({ tenantId, listings: 2 });
      expect(afterB).toEqual([first.id, second.id].sort());
      expect(storedIds(tenantId)).toEqual([first.id, second.id].sort());
      expect(resultA).toBeUndefined();
      expect(await markedDue(tenantId)).toBe(true);

      // And the next run rebuilds from B's snapshot, writes, and leaves no marker.
      const next = await rebuildAsWorker(tenantId, new Date());
      expect(next).toMatchObject({ tenantId, source: 'catch-up', listings: 2 });
      expect(storedIds(tenantId)).toEqual([first.id, second.id].sort());
      expect(await markedDue(tenantId)).toBe(false);
    },
  );

  it('a newer run whose write arrives after an older one’s is refused too, and the next run catches up', async () => {
    // Prepare
    const caller = await newCaller();
    const tenantId = caller.tenant.tenantId;
    const first = await addListing(caller, 'Listed first');
    await afterIndexLag();
    await rebuildCatalogueSnapshot(tenantId, { fromTable: true });
    await markCatalogueRebuildDue(tenantId, new Date(Date.now() - 1_000).toISOString());

    // Act: A reads the snapshot, then B (after a new listing) reads the same one; A's write lands
    // first, B's after it.
    const delayedA = holdNextPut(catalogueKey(tenantId));
    const runA = rebuildAsWorker(tenantId, new Date());
    await delayedA.reached;
    const second = await addListing(caller, 'Listed between the runs');
    await afterIndexLag();
    await markCatalogueRebuildDue(tenantId, new Date(Date.now() - 1_000).toISOString());
    const delayedB = holdNextPut(catalogueKey(tenantId));
    const runB = rebuildAsWorker(tenantId, new Date());
    await delayedB.reached;
    delayedA.release();
    const resultA = await runA;
    delayedB.release();
    const resultB = await runB;

    // Assess: A's snapshot (without the second listing) stays for now; B, refused, marked the Tenant
    // due; the next run brings the second listing in.
    expect(resultA).toMatchObject({ tenantId, listings: 1 });
    expect(resultB).toBeUndefined();
    expect(storedIds(tenantId)).toEqual([first.id]);
    expect(await markedDue(tenantId)).toBe(true);
    const next = await rebuildAsWorker(tenantId, new Date());
    expect(next).toMatchObject({ tenantId, listings: 2 });
    expect(storedIds(tenantId)).toEqual([first.id, second.id].sort());
  });

  it('a rebuild from the table (the admin command) that a scheduled run supersedes reads again and stores the table', async () => {
    // Prepare: a snapshot that lost a listing the table holds (what the admin command repairs).
    const caller = await newCaller();
    const tenantId = caller.tenant.tenantId;
    const kept = await addListing(caller, 'Kept');
    await afterIndexLag();
    await rebuildCatalogueSnapshot(tenantId, { fromTable: true });
    const lost = await addListing(caller, 'Missing from the snapshot');
    await afterIndexLag();
    await markCatalogueRebuildDue(tenantId, new Date(Date.now() - 1_000).toISOString());
    const puts = () =>
      s3.commandCalls(PutObjectCommand).filter((c) => c.args[0].input.Key === catalogueKey(tenantId));
    const putsBefore = puts().length;

    // Act: the admin rebuild's write arrives after a scheduled run's.
    const delayed = holdNextPut(catalogueKey(tenantId));
    const admin = rebuildCatalogueSnapshot(tenantId, { fromTable: true });
    await delayed.reached;
    await rebuildAsWorker(tenantId, new Date());
    delayed.release();
    const result = await admin;

    // Assess: refused once, then written from a second read of the table.
    expect(result).toMatchObject({ tenantId, source: 'table', listings: 2, written: true });
    expect(puts().length - putsBefore).toBe(3);
    expect(storedIds(tenantId)).toEqual([kept.id, lost.id].sort());
  });
});
