/**
 * A camera photo as a website gets it: a 24-megapixel JPEG carrying its EXIF GPS position, uploaded
 * to a live listing through the real HTTP server and the local S3 (mint, PUT, confirm), its renditions
 * made by the photo import worker, then read through the site API with a publishable key. The page
 * finds a card rendition (300–800 px) within 100 KB and a large one (1,200–2,048 px) within 400 KB,
 * one of them WebP or AVIF; no served file carries the GPS position (the served bytes parsed); each is
 * served cached for at least a year. The secret API shows the same image object.
 */
import type { SQSEvent } from 'aws-lambda';
import sharp from 'sharp';
import { Agent, fetch as undiciFetch } from 'undici';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { setQueue } from '../../functions/kernel/ports/queue.ts';
import { issueSiteKey } from '../../functions/services/site-keys.ts';
import { handler as photoWorker } from '../../functions/workers/image-import.ts';
import { LOCAL_S3_CREDENTIALS } from '../../scripts/local/adapters/local-photo-store.ts';
import { LocalQueue } from '../../scripts/local/adapters/local-queue.ts';
import { cameraJpeg, exifTags, smallJpeg } from '../../scripts/local/camera-photos.ts';
import { deliverDue } from '../../scripts/local/queue-poller.ts';
import { asFunction, WORKER_ENTRIES } from '../support/aws-operations.ts';
import { createTestPlaces, createTestTenant } from '../support/factories.ts';
import { startTestApi, type TestApi } from '../support/http.ts';
import { ownPhotoQueue } from '../support/photo-queue.ts';
import { strictS3Put } from '../support/strict-s3.ts';

// A 24-megapixel photo is drawn, uploaded and rendered on a shared 2-core machine.
vi.setConfig({ testTimeout: 180_000 });

const PAGE = 'https://www.photos.example';
const YEAR_SECONDS = 365 * 24 * 3600;

/** This file's own photo queue, drained by the worker below. */
const { name: PHOTO_QUEUE, port: fileQueue } = ownPhotoQueue();
const worker = asFunction(WORKER_ENTRIES.imageImport, photoWorker);

const freshConnections = new Agent({ pipelining: 0 });
const fromS3 = (url: string, init: Parameters<typeof undiciFetch>[1] = {}) =>
  undiciFetch(url, { ...init, dispatcher: freshConnections });
const putToS3 = strictS3Put(LOCAL_S3_CREDENTIALS, (url, init) => fromS3(url, init) as Promise<Response>);

let api: TestApi;
let siteKey: string;

beforeAll(async () => {
  setQueue(fileQueue);
  const tenant = await createTestTenant();
  api = await startTestApi(tenant.key);
  siteKey = (await issueSiteKey({ tenantId: tenant.tenantId, origins: PAGE })).key;
});
afterAll(async () => {
  setQueue(new LocalQueue());
  await api?.close();
});

function site(path: string) {
  return api.call('GET', `${path}?key=${siteKey}&origin=${encodeURIComponent(PAGE)}`, {
    key: null,
    headers: { origin: PAGE },
  });
}

interface Rendition {
  url: string;
  width: number;
  height: number;
  type: string;
}

describe('a camera photo on the website', () => {
  it('is served as a card rendition within 100 KB and a large one within 400 KB, one of them WebP, no file with its GPS, cached a year', async () => {
    // Prepare: a live listing, and the camera's photo with its GPS position.
    const places = await createTestPlaces();
    const listing = await api.call('POST', '/v1/properties', {
      body: {
        title: 'Villa with a garden',
        listing_type: 'sale',
        price: '450000',
        currency: 'EUR',
        property_type: 'house',
        place_code: places.town.code,
        location_precision: 'hidden',
      },
    });
    expect(listing.status, listing.text).toBe(201);
    const propertyId: string = listing.body.id;
    const photo = await cameraJpeg();
    const original = await sharp(photo).metadata();
    expect(original.width * original.height).toBe(24_000_000);
    expect(exifTags(original.exif).gps.size).toBeGreaterThan(0);

    // Act: mint, PUT to the local S3 as S3 would take it, confirm; the worker makes the renditions.
    const minted = await api.call('POST', `/v1/properties/${propertyId}/images/uploads`, {
      body: { content_type: 'image/jpeg', size_bytes: photo.length },
    });
    expect(minted.status, minted.text).toBe(201);
    const put = await putToS3(minted.body.url, { method: 'PUT', headers: minted.body.headers, body: photo });
    expect(put.status, await put.clone().text()).toBe(200);
    const confirmed = await api.call('POST', `/v1/properties/${propertyId}/images`, {
      body: { object_key: minted.body.object_key },
    });
    expect(confirmed.status, confirmed.text).toBe(201);
    expect(confirmed.body).toMatchObject({ status: 'processing', url: null, renditions: [] });
    while ((await deliverDue(PHOTO_QUEUE as never, worker as (event: SQSEvent) => Promise<never>)) > 0) {
      // until the renditions are made
    }
    const imported = await api.call('GET', `/v1/properties/${propertyId}`);
    expect(imported.body.images, imported.text).toMatchObject([{ id: confirmed.body.id, status: 'ready' }]);
    let page!: Awaited<ReturnType<typeof site>>;
    await expect
      .poll(
        async () => {
          page = await site(`/v1/site/properties/by-slug/${listing.body.slug}`);
          return page.body.images?.length ?? 0;
        },
        { timeout: 30_000, interval: 250 },
      )
      .toBe(1);
    const [image] = page.body.images as { url: string; renditions: Rendition[] }[];
    const renditions = image!.renditions;
    const servedFiles = await Promise.all(
      [image!.url, ...renditions.map((r) => r.url)].map(async (url) => {
        const res = await fromS3(url);
        expect(res.status, url).toBe(200);
        const bytes = Buffer.from(await res.arrayBuffer());
        return {
          url,
          bytes,
          cacheControl: res.headers.get('cache-control') ?? '',
          metadata: await sharp(bytes).metadata(),
        };
      }),
    );
    const served = (r: Rendition) => servedFiles.find((f) => f.url === r.url)!;
    const card = renditions
      .filter((r) => r.width >= 300 && r.width <= 800)
      .sort((a, b) => served(a).bytes.length - served(b).bytes.length)
      .findLast((r) => served(r).bytes.length <= 100 * 1024);
    const large = renditions
      .filter((r) => r.width >= 1200 && r.width <= 2048)
      .findLast((r) => served(r).bytes.length <= 400 * 1024);

    // Assess: the card and the large rendition, their sizes as served.
    expect(card, JSON.stringify(renditions)).toBeDefined();
    expect(large, JSON.stringify(renditions)).toBeDefined();
    expect(served(card!).bytes.length).toBeLessThanOrEqual(100 * 1024);
    expect(served(large!).bytes.length).toBeLessThanOrEqual(400 * 1024);
    const modern = [card!, large!].filter((r) => ['image/webp', 'image/avif'].includes(r.type));
    expect(modern.length).toBeGreaterThan(0);
    for (const r of modern) expect(served(r).metadata.format).toBe(r.type === 'image/webp' ? 'webp' : 'heif');
    for (const r of renditions)
      expect([served(r).metadata.width, served(r).metadata.height]).toEqual([r.width, r.height]);
    // No served file carries the GPS position, nor any EXIF at all; each is cached at least a year.
    for (const f of servedFiles) {
      expect(exifTags(f.metadata.exif).gps.size, f.url).toBe(0);
      expect(f.metadata.exif, f.url).toBeUndefined();
      expect(f.cacheControl, f.url).toMatch(/\bimmutable\b/);
      const maxAge = Number(/\bmax-age=(\d+)/.exec(f.cacheControl)?.[1] ?? 0);
      expect(maxAge, f.url).toBeGreaterThanOrEqual(YEAR_SECONDS);
    }
    // The secret API gives the same image object.
    const secret = await api.call('GET', `/v1/properties/${propertyId}`);
    expect(secret.body.images).toEqual(page.body.images);
  });
});

describe('a confirmed upload while its renditions are made', () => {
  it('is answered 201 as a gallery image, processing; PATCHed at once; ready in place later; hidden from the site API until then', async () => {
    // Prepare: a live listing and a small photo, uploaded.
    const places = await createTestPlaces();
    const listing = await api.call('POST', '/v1/properties', {
      body: {
        title: 'Flat by the park',
        listing_type: 'rent',
        price: '1200',
        currency: 'EUR',
        property_type: 'apartment',
        place_code: places.town.code,
        location_precision: 'hidden',
      },
    });
    expect(listing.status, listing.text).toBe(201);
    const propertyId: string = listing.body.id;
    const photo = await smallJpeg(200, 150);
    const minted = await api.call('POST', `/v1/properties/${propertyId}/images/uploads`, {
      body: { content_type: 'image/jpeg', size_bytes: photo.length },
    });
    const put = await putToS3(minted.body.url, { method: 'PUT', headers: minted.body.headers, body: photo });
    expect(put.status, await put.clone().text()).toBe(200);

    // Act 1: confirm, then PATCH the image at once (the worker has not run).
    const confirmed = await api.call('POST', `/v1/properties/${propertyId}/images`, {
      body: { object_key: minted.body.object_key },
    });
    expect(confirmed.status, confirmed.text).toBe(201);
    const id: string = confirmed.body.id;
    const patched = await api.call('PATCH', `/v1/properties/${propertyId}/images/${id}`, {
      body: { sort_order: 7 },
    });
    const again = await api.call('POST', `/v1/properties/${propertyId}/images`, {
      body: { object_key: minted.body.object_key },
    });
    const secretWhile = await api.call('GET', `/v1/properties/${propertyId}`);
    const siteWhile = await site(`/v1/site/properties/by-slug/${listing.body.slug}`);

    // Assess 1: a processing gallery image, nothing served yet; the website does not list it.
    expect(confirmed.body).toMatchObject({
      id: expect.any(String),
      status: 'processing',
      url: null,
      renditions: [],
      is_primary: true,
    });
    expect(patched.status, patched.text).toBe(200);
    expect(patched.body).toMatchObject({ id, status: 'processing', sort_order: 7 });
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ id, status: 'processing', sort_order: 7 });
    expect(secretWhile.body.images).toMatchObject([{ id, status: 'processing', sort_order: 7 }]);
    expect(siteWhile.status, siteWhile.text).toBe(200);
    expect(siteWhile.body.images).toEqual([]);

    // Act 2: the worker makes the renditions.
    while ((await deliverDue(PHOTO_QUEUE as never, worker as (event: SQSEvent) => Promise<never>)) > 0) {
      // until the queue is empty
    }
    const secretAfter = await api.call('GET', `/v1/properties/${propertyId}`);

    // Assess 2: the same image, ready in place, its PATCH kept; then the website lists it.
    expect(secretAfter.body.images).toHaveLength(1);
    const [ready] = secretAfter.body.images as ({ status: string } & Record<string, unknown>)[];
    expect(ready).toMatchObject({ id, status: 'ready', sort_order: 7, is_primary: true, width: 200 });
    expect(ready?.url).toEqual(expect.any(String));
    expect((ready!.renditions as Rendition[]).length).toBeGreaterThan(0);
    await expect
      .poll(
        async () =>
          ((await site(`/v1/site/properties/by-slug/${listing.body.slug}`)).body.images ?? []).map(
            (i: { id: string; status: string }) => [i.id, i.status],
          ),
        { timeout: 30_000, interval: 250 },
      )
      .toEqual([[id, 'ready']]);
    const deleted = await api.call('DELETE', `/v1/properties/${propertyId}/images/${id}`);
    expect(deleted.status).toBe(204);
  });
});
