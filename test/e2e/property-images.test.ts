/**
 * Listing photos end to end: imports by URL served from a local HTTP server, run by the real worker
 * from the local queue (which makes each photo's renditions); uploads PUT to the presigned URL of the
 * local S3, confirmed (in the gallery at once, processing, then made ready by the same worker), reordered, given a new
 * cover and deleted; the listing's GET and the events log after each step.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { SQSEvent } from 'aws-lambda';
import sharp from 'sharp';
import { Agent, Dispatcher, MockAgent, fetch as undiciFetch } from 'undici';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { MAX_IMAGE_BYTES } from '../../functions/domain/images.ts';
import { publicDispatcher, type Resolver } from '../../functions/kernel/net/public-dispatcher.ts';
import { setQueue } from '../../functions/kernel/ports/queue.ts';
import { runImport } from '../../functions/services/photo-processing.ts';
import { ImageImportMessage, handler as importWorker } from '../../functions/workers/image-import.ts';
import { LOCAL_S3_CREDENTIALS } from '../../scripts/local/adapters/local-photo-store.ts';
import { LocalQueue } from '../../scripts/local/adapters/local-queue.ts';
import { formatSamples, smallJpeg } from '../../scripts/local/camera-photos.ts';
import { deliverDue } from '../../scripts/local/queue-poller.ts';
import { asFunction, WORKER_ENTRIES } from '../support/aws-operations.ts';
import { createTestTenant, type TestTenant } from '../support/factories.ts';
import { startTestApi, type TestApi } from '../support/http.ts';
import { ownPhotoQueue } from '../support/photo-queue.ts';
import { startTestStreamConsumer, type TestStreamConsumer } from '../support/stream.ts';
import { strictS3Put, uploadContractProblems } from '../support/strict-s3.ts';

/** This file's own local queue for imports: other files' import messages never reach its worker. */
const { name: IMPORT_QUEUE, port: fileQueue } = ownPhotoQueue();

/**
 * Requests to the local S3 on a fresh connection each: s3rver closes idle keep-alive connections on
 * its own timer, and a request sent on one just as it closes fails with ECONNRESET.
 */
const freshConnections = new Agent({ pipelining: 0 });
const toS3 = (url: string, init: Parameters<typeof undiciFetch>[1] = {}) =>
  undiciFetch(url, { ...init, dispatcher: freshConnections });
/**
 * Uploads PUT as real S3 would take them: s3rver checks no signature and no checksum, so each PUT
 * is first judged by the strict checker (SigV4 over what is sent, signed headers, checksums) and a
 * refused one answers S3's error without reaching s3rver.
 */
const putToS3 = strictS3Put(LOCAL_S3_CREDENTIALS, (url, init) => toS3(url, init) as Promise<Response>);

/** Sends each request to the dispatcher of its origin, or to `fallback`. */
class ByOrigin extends Dispatcher {
  readonly #routes: Record<string, Dispatcher>;
  readonly #fallback: Dispatcher;
  constructor(routes: Record<string, Dispatcher>, fallback: Dispatcher) {
    super();
    this.#routes = routes;
    this.#fallback = fallback;
  }
  override dispatch(options: Dispatcher.DispatchOptions, handler: Dispatcher.DispatchHandler): boolean {
    const origin = String(options.origin ?? '').replace(/\/$/, '');
    return (this.#routes[origin] ?? this.#fallback).dispatch(options, handler);
  }
}

// Each test runs several fetches, S3 writes and worker passes: on a busy shared machine that can take a while.
vi.setConfig({ testTimeout: 120_000 });

let api: TestApi;
let tenant: TestTenant;
let other: TestTenant;
let consumer: TestStreamConsumer;
let origin: Server;
let base: string;
/** One small file of each accepted format, encoded by sharp. */
let SAMPLE_IMAGES: Awaited<ReturnType<typeof formatSamples>>;
const worker = asFunction(WORKER_ENTRIES.imageImport, importWorker);

/** The photo server: each format (sent as application/octet-stream: the type is read from the bytes). */
function startOrigin(): Promise<Server> {
  const server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    const sample = SAMPLE_IMAGES.find((s) => `/${s.name}` === path);
    if (sample) {
      res.writeHead(200, { 'content-type': 'application/octet-stream' }).end(sample.bytes);
      return;
    }
    const hop = /^\/hop\/(\d+)$/.exec(path);
    if (hop) {
      const left = Number(hop[1]);
      res.writeHead(302, { location: left > 1 ? `/hop/${left - 1}` : '/photo.png' }).end();
      return;
    }
    switch (path) {
      case '/lying.jpg':
        // An HTML page that calls itself a JPEG, by name and by header.
        res
          .writeHead(200, { 'content-type': 'image/jpeg' })
          .end('<!doctype html><html><body>not a photo</body></html>');
        return;
      case '/huge.jpg': {
        // 21 MB, streamed without a length: the reader must stop by itself past 20 MB.
        res.writeHead(200, { 'content-type': 'image/jpeg' });
        const chunk = Buffer.alloc(1024 * 1024, 0xff);
        let sent = 0;
        const pump = () => {
          while (sent < 21 && res.write(chunk)) sent++;
          if (sent >= 21) res.end();
          else
            res.once('drain', () => {
              sent++;
              pump();
            });
        };
        pump();
        return;
      }
      default:
        res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
    }
  });
  return new Promise((done) => server.listen(0, '127.0.0.1', () => done(server)));
}

/** Runs the worker on every import message this file queued, until none is left. */
async function drainImports(run: (event: SQSEvent) => Promise<unknown> = worker): Promise<void> {
  while ((await deliverDue(IMPORT_QUEUE as never, run as never)) > 0) {
    // keep going: a message may be retried
  }
}

async function newListing(title = 'Sea view flat'): Promise<string> {
  const res = await api.call('POST', '/v1/properties', { body: { title } });
  expect(res.status).toBe(201);
  return res.body.id;
}

beforeAll(async () => {
  SAMPLE_IMAGES = await formatSamples();
  [tenant, other] = await Promise.all([createTestTenant(), createTestTenant()]);
  setQueue(fileQueue);
  process.env.LOCAL_ALLOW_PRIVATE_URLS = '1';
  origin = await startOrigin();
  base = `http://127.0.0.1:${(origin.address() as AddressInfo).port}`;
  api = await startTestApi(tenant.key);
  consumer = await startTestStreamConsumer([tenant.tenantId]);
});
afterAll(async () => {
  consumer.stop();
  origin.close();
  delete process.env.LOCAL_ALLOW_PRIVATE_URLS;
  setQueue(new LocalQueue());
  await api.close();
});

describe('import by URL', () => {
  it('imports a JPEG, PNG, WebP, AVIF and GIF: ready, typed by content, rendered at their own size, the original never served', async () => {
    // Prepare
    const propertyId = await newListing();
    // Act
    const requested = [];
    for (const sample of SAMPLE_IMAGES) {
      const res = await api.call('POST', `/v1/properties/${propertyId}/images:import`, {
        body: { url: `${base}/${sample.name}` },
      });
      requested.push(res);
    }
    await drainImports();
    // Assess
    for (const [n, res] of requested.entries()) {
      const sample = SAMPLE_IMAGES[n];
      expect(res.status).toBe(202);
      expect(res.body).toMatchObject({ status: 'pending', url: `${base}/${sample?.name}`, image: null });
      const done = await api.call('GET', `/v1/properties/${propertyId}/images:import/${res.body.id}`);
      expect(done.status).toBe(200);
      expect(done.body.status).toBe('ready');
      // Smaller than every rendition width: one WebP and the JPEG, at the photo's own size.
      expect(done.body.image).toMatchObject({
        content_type: 'image/jpeg',
        width: sample?.width,
        height: sample?.height,
      });
      expect(
        done.body.image.renditions.map((r: { type: string; width: number }) => [r.type, r.width]),
      ).toEqual([
        ['image/webp', sample?.width],
        ['image/jpeg', sample?.width],
      ]);
      // The default URL serves the JPEG rendition, not the file fetched.
      const served = Buffer.from(await (await toS3(done.body.image.url)).arrayBuffer());
      expect([...served.subarray(0, 3)]).toEqual([0xff, 0xd8, 0xff]);
      expect(served.equals(Buffer.from(sample?.bytes ?? []))).toBe(false);
      expect(done.body.image.size_bytes).toBe(served.length);
    }
    const listing = await api.call('GET', `/v1/properties/${propertyId}`);
    expect(listing.body.images.map((i: { width: number }) => i.width)).toEqual(
      SAMPLE_IMAGES.map((s) => s.width),
    );
    expect(listing.body.images.filter((i: { is_primary: boolean }) => i.is_primary)).toHaveLength(1);
    expect(listing.body.images[0].is_primary).toBe(true);
  });

  it('fails each bad file with its reason: HTML named .jpg, 21 MB, four redirects, 404; keeps nothing of them', async () => {
    // Prepare
    const propertyId = await newListing();
    const cases = [
      { path: '/lying.jpg', reason: 'unsupported_type' },
      { path: '/huge.jpg', reason: 'too_large' },
      { path: '/hop/4', reason: 'too_many_redirects' },
      { path: '/missing.jpg', reason: 'http_error', status: 404 },
    ];
    // Act
    const ids: string[] = [];
    for (const c of cases) {
      const res = await api.call('POST', `/v1/properties/${propertyId}/images:import`, {
        body: { url: `${base}${c.path}` },
      });
      expect(res.status).toBe(202);
      ids.push(res.body.id);
    }
    await drainImports();
    // Assess
    for (const [n, c] of cases.entries()) {
      const res = await api.call('GET', `/v1/properties/${propertyId}/images:import/${ids[n]}`);
      expect(res.body).toMatchObject({
        status: 'failed',
        failure_reason: c.reason,
        failure_status: c.status ?? null,
        image: null,
      });
    }
    const listing = await api.call('GET', `/v1/properties/${propertyId}`);
    expect(listing.body.images).toEqual([]);
  });

  it('follows up to three redirects', async () => {
    // Prepare
    const propertyId = await newListing();
    // Act
    const res = await api.call('POST', `/v1/properties/${propertyId}/images:import`, {
      body: { url: `${base}/hop/3` },
    });
    await drainImports();
    // Assess
    const done = await api.call('GET', `/v1/properties/${propertyId}/images:import/${res.body.id}`);
    expect(done.body).toMatchObject({ status: 'ready', image: { content_type: 'image/jpeg', width: 33 } });
  });

  it('answers a repeated URL with the same import: 200 while pending or ready, a failed one tried again (202)', async () => {
    // Prepare
    const propertyId = await newListing();
    const url = `${base}/photo.gif`;
    const first = await api.call('POST', `/v1/properties/${propertyId}/images:import`, { body: { url } });
    // Act
    const whilePending = await api.call('POST', `/v1/properties/${propertyId}/images:import`, {
      body: { url },
    });
    await drainImports();
    const whenReady = await api.call('POST', `/v1/properties/${propertyId}/images:import`, { body: { url } });
    const missing = `${base}/later.gif`;
    const failed = await api.call('POST', `/v1/properties/${propertyId}/images:import`, {
      body: { url: missing },
    });
    await drainImports();
    const retried = await api.call('POST', `/v1/properties/${propertyId}/images:import`, {
      body: { url: missing },
    });
    // Assess
    expect(first.status).toBe(202);
    expect(whilePending.status).toBe(200);
    expect(whilePending.body).toMatchObject({ id: first.body.id, status: 'pending' });
    expect(whenReady.status).toBe(200);
    expect(whenReady.body).toMatchObject({ id: first.body.id, status: 'ready' });
    expect(retried.status).toBe(202);
    expect(retried.body).toMatchObject({ id: failed.body.id, status: 'pending', failure_reason: null });
    const listing = await api.call('GET', `/v1/properties/${propertyId}`);
    expect(listing.body.images).toHaveLength(1);
  });

  it('imports a URL again after its photo was deleted: a new fetch (202, same id) puts the photo back', async () => {
    // Prepare: imported, ready, then its photo deleted from the gallery.
    const propertyId = await newListing();
    const url = `${base}/photo.webp`;
    const first = await api.call('POST', `/v1/properties/${propertyId}/images:import`, { body: { url } });
    await drainImports();
    const ready = await api.call('GET', `/v1/properties/${propertyId}/images:import/${first.body.id}`);
    expect(ready.body.status).toBe('ready');
    const gone = await api.call('DELETE', `/v1/properties/${propertyId}/images/${ready.body.image.id}`);
    expect(gone.status).toBe(204);
    // Act
    const again = await api.call('POST', `/v1/properties/${propertyId}/images:import`, { body: { url } });
    await drainImports();
    const done = await api.call('GET', `/v1/properties/${propertyId}/images:import/${first.body.id}`);
    const repeated = await api.call('POST', `/v1/properties/${propertyId}/images:import`, { body: { url } });
    // Assess
    expect(again.status).toBe(202);
    expect(again.body).toMatchObject({ id: first.body.id, status: 'pending', image: null });
    expect(done.body).toMatchObject({ status: 'ready', image: { content_type: 'image/jpeg', width: 64 } });
    expect(done.body.image.id).not.toBe(ready.body.image.id);
    const listing = await api.call('GET', `/v1/properties/${propertyId}`);
    expect(listing.body.images.map((i: { id: string }) => i.id)).toEqual([done.body.image.id]);
    // Once back in the gallery, the same URL is the ready import again.
    expect(repeated.status).toBe(200);
    expect(repeated.body).toMatchObject({
      id: first.body.id,
      status: 'ready',
      image: { id: done.body.image.id },
    });
  });

  it('refuses bad URLs with 422: http outside the local switch, private addresses in any spelling, userinfo', async () => {
    // Prepare
    const propertyId = await newListing();
    delete process.env.LOCAL_ALLOW_PRIVATE_URLS;
    try {
      const urls = [
        `${base}/photo.png`,
        'https://127.0.0.1/photo.png',
        'https://2130706433/photo.png',
        'https://[::ffff:169.254.169.254]/latest/meta-data',
        'https://169.254.169.254/latest/meta-data',
        'https://10.0.0.8/photo.png',
        'https://metadata.internal/photo.png',
        'https://user:pass@photos.example.com/photo.png',
        'not a url',
      ];
      for (const url of urls) {
        // Act
        const res = await api.call('POST', `/v1/properties/${propertyId}/images:import`, { body: { url } });
        // Assess
        expect(res.status, url).toBe(422);
        expect(res.body.detail[0].loc).toEqual(['body', 'url']);
      }
    } finally {
      process.env.LOCAL_ALLOW_PRIVATE_URLS = '1';
    }
  });

  it('with the private switch off, fails an import whose public URL redirects to 127.0.0.1 or to a name resolving there', async () => {
    // Prepare: a public https host is played by undici's MockAgent; every other host goes through the
    // real public-only dispatcher, where a fake DNS resolves the rebinding name to 127.0.0.1.
    const fakeDns: Resolver = async (hostname) =>
      hostname === 'rebind.photos.example' ? [{ address: '127.0.0.1', family: 4 }] : [];
    const real = publicDispatcher({ allowPrivate: false, resolver: fakeDns });
    const mock = new MockAgent();
    mock.disableNetConnect();
    const agent = new ByOrigin({ 'https://photos.example.com': mock }, real);
    const port = (origin.address() as AddressInfo).port;
    const cdn = mock.get('https://photos.example.com');
    cdn
      .intercept({ path: '/to-loopback' })
      .reply(302, '', { headers: { location: `https://127.0.0.1:${port}/photo.png` } });
    cdn
      .intercept({ path: '/to-rebind' })
      .reply(302, '', { headers: { location: 'https://rebind.photos.example/photo.png' } });
    cdn
      .intercept({ path: '/to-http' })
      .reply(302, '', { headers: { location: `http://localhost:${port}/photo.png` } });
    const propertyId = await newListing();
    delete process.env.LOCAL_ALLOW_PRIVATE_URLS;
    const ids: string[] = [];
    try {
      for (const path of ['/to-loopback', '/to-rebind', '/to-http']) {
        const res = await api.call('POST', `/v1/properties/${propertyId}/images:import`, {
          body: { url: `https://photos.example.com${path}` },
        });
        expect(res.status).toBe(202);
        ids.push(res.body.id);
      }
      // Act: the queued messages, run by the worker's service with that dispatcher and the switch off.
      await drainImports(
        asFunction(WORKER_ENTRIES.imageImport, async (event: SQSEvent) => {
          for (const record of event.Records) {
            await runImport(ImageImportMessage.parse(JSON.parse(record.body)), {
              dispatcher: agent,
              allowPrivate: false,
            });
          }
          return { batchItemFailures: [] };
        }),
      );
    } finally {
      process.env.LOCAL_ALLOW_PRIVATE_URLS = '1';
    }
    // Assess
    const reasons = [];
    for (const id of ids) {
      const res = await api.call('GET', `/v1/properties/${propertyId}/images:import/${id}`);
      reasons.push([res.body.status, res.body.failure_reason]);
    }
    expect(reasons).toEqual([
      ['failed', 'blocked_address'],
      ['failed', 'blocked_address'],
      ['failed', 'invalid_url'],
    ]);
    await mock.close();
    await real.close();
  });
});

describe('uploads and the gallery', () => {
  it('mints an upload, takes the PUT, confirms it, reorders, moves the cover, deletes; the listing and the events follow', async () => {
    // Prepare
    const propertyId = await newListing('Gallery flat');
    const png = await sharp(await smallJpeg(120, 80))
      .png()
      .toBuffer();
    const importRes = await api.call('POST', `/v1/properties/${propertyId}/images:import`, {
      body: { url: `${base}/photo.jpg` },
    });
    await drainImports();
    const imported = (
      await api.call('GET', `/v1/properties/${propertyId}/images:import/${importRes.body.id}`)
    ).body.image;

    // Act 1: mint and PUT
    const minted = await api.call('POST', `/v1/properties/${propertyId}/images/uploads`, {
      body: { content_type: 'image/png', size_bytes: png.length },
    });
    expect(minted.status).toBe(201);
    expect(minted.body).toMatchObject({
      method: 'PUT',
      headers: { 'Content-Type': 'image/png', 'Content-Length': String(png.length) },
    });
    expect(minted.body.object_key.startsWith(`uploads/${tenant.tenantId}/${propertyId}/`)).toBe(true);
    expect(uploadContractProblems(minted.body)).toEqual([]);
    const put = await putToS3(minted.body.url, { method: 'PUT', headers: minted.body.headers, body: png });
    expect(put.status, await put.clone().text()).toBe(200);

    // Act 2: confirm (twice), as the cover; the worker makes its renditions
    const confirmed = await api.call('POST', `/v1/properties/${propertyId}/images`, {
      body: { object_key: minted.body.object_key, is_primary: true },
    });
    const again = await api.call('POST', `/v1/properties/${propertyId}/images`, {
      body: { object_key: minted.body.object_key },
    });
    const whilePending = (await api.call('GET', `/v1/properties/${propertyId}`)).body;
    await drainImports();
    const afterwards = await api.call('POST', `/v1/properties/${propertyId}/images`, {
      body: { object_key: minted.body.object_key },
    });
    // Assess 2: in the gallery at once, processing (nothing served), then ready in place
    expect(confirmed.status, confirmed.text).toBe(201);
    expect(confirmed.body).toMatchObject({
      id: expect.any(String),
      status: 'processing',
      url: null,
      renditions: [],
      is_primary: true,
      sort_order: 1,
    });
    expect(again.status).toBe(200);
    expect(again.body).toEqual(confirmed.body);
    expect(whilePending.images.map((i: { id: string; status: string }) => [i.id, i.status])).toEqual([
      [imported.id, 'ready'],
      [confirmed.body.id, 'processing'],
    ]);
    const uploaded = afterwards.body;
    expect(uploaded).toMatchObject({
      id: confirmed.body.id,
      status: 'ready',
      content_type: 'image/jpeg',
      width: 120,
      height: 80,
      is_primary: true,
      sort_order: 1,
    });
    expect(afterwards.status).toBe(200);
    const served = Buffer.from(await (await toS3(uploaded.url)).arrayBuffer());
    expect((await sharp(served).metadata()).format).toBe('jpeg');
    let listing = (await api.call('GET', `/v1/properties/${propertyId}`)).body;
    expect(listing.images.map((i: { id: string; is_primary: boolean }) => [i.id, i.is_primary])).toEqual([
      [imported.id, false],
      [uploaded.id, true],
    ]);

    // Act 3: reorder (the upload first), then move the cover back to the imported photo
    const reordered = await api.call('PATCH', `/v1/properties/${propertyId}/images/${uploaded.id}`, {
      body: { sort_order: 0 },
    });
    listing = (await api.call('GET', `/v1/properties/${propertyId}`)).body;
    // Assess 3 (ties on sort_order go by created_at: the import is older)
    expect(reordered.status).toBe(200);
    expect(listing.images.map((i: { id: string }) => i.id)).toEqual([imported.id, uploaded.id]);
    await api.call('PATCH', `/v1/properties/${propertyId}/images/${imported.id}`, {
      body: { sort_order: 5 },
    });
    listing = (await api.call('GET', `/v1/properties/${propertyId}`)).body;
    expect(listing.images.map((i: { id: string }) => i.id)).toEqual([uploaded.id, imported.id]);
    const cover = await api.call('PATCH', `/v1/properties/${propertyId}/images/${imported.id}`, {
      body: { is_primary: true },
    });
    listing = (await api.call('GET', `/v1/properties/${propertyId}`)).body;
    expect(cover.body.is_primary).toBe(true);
    expect(listing.images.map((i: { is_primary: boolean }) => i.is_primary)).toEqual([false, true]);
    const unsetCover = await api.call('PATCH', `/v1/properties/${propertyId}/images/${imported.id}`, {
      body: { is_primary: false },
    });
    expect(unsetCover.status).toBe(422);

    // Act 4: delete the cover: the other photo becomes the cover, the file is gone
    const deleted = await api.call('DELETE', `/v1/properties/${propertyId}/images/${imported.id}`);
    listing = (await api.call('GET', `/v1/properties/${propertyId}`)).body;
    // Assess 4
    expect(deleted.status).toBe(204);
    expect(listing.images.map((i: { id: string; is_primary: boolean }) => [i.id, i.is_primary])).toEqual([
      [uploaded.id, true],
    ]);
    for (const rendition of [imported.url, ...imported.renditions.map((r: { url: string }) => r.url)]) {
      expect((await toS3(rendition)).status, rendition).toBe(404);
    }
    expect((await api.call('DELETE', `/v1/properties/${propertyId}/images/${imported.id}`)).status).toBe(404);

    // Events: each gallery change is a property.updated with images among changed_fields.
    await expect
      .poll(
        async () => {
          const events = (await api.call('GET', '/v1/events?limit=200')).body.data as {
            type: string;
            data: { id: string; changed_fields?: string[]; images?: unknown[] };
          }[];
          return events.filter(
            (e) =>
              e.type === 'property.updated' &&
              e.data.id === propertyId &&
              e.data.changed_fields?.includes('images'),
          ).length;
        },
        { timeout: 20_000, interval: 200 },
      )
      .toBeGreaterThanOrEqual(5);
  });

  it("refuses what does not fit: bad type or size, another listing's key, nothing uploaded, a lying file (deleted)", async () => {
    // Prepare
    const propertyId = await newListing();
    const otherListing = await newListing();
    const html = Buffer.from('<!doctype html><html><body>photo.jpg</body></html>');
    const mintedHtml = await api.call('POST', `/v1/properties/${propertyId}/images/uploads`, {
      body: { content_type: 'image/jpeg', size_bytes: html.length },
    });
    expect(uploadContractProblems(mintedHtml.body)).toEqual([]);
    const put = await putToS3(mintedHtml.body.url, {
      method: 'PUT',
      headers: mintedHtml.body.headers,
      body: html,
    });
    expect(put.status, await put.clone().text()).toBe(200);
    const mintedOther = await api.call('POST', `/v1/properties/${otherListing}/images/uploads`, {
      body: { content_type: 'image/png', size_bytes: 10 },
    });
    const mintedNever = await api.call('POST', `/v1/properties/${propertyId}/images/uploads`, {
      body: { content_type: 'image/png', size_bytes: 10 },
    });
    // Act + Assess
    for (const body of [
      { content_type: 'image/svg+xml', size_bytes: 10 },
      { content_type: 'image/png', size_bytes: 0 },
      { content_type: 'image/png', size_bytes: MAX_IMAGE_BYTES + 1 },
    ]) {
      expect((await api.call('POST', `/v1/properties/${propertyId}/images/uploads`, { body })).status).toBe(
        422,
      );
    }
    for (const objectKey of [
      mintedOther.body.object_key,
      mintedNever.body.object_key,
      `uploads/${tenant.tenantId}/${propertyId}/../x`,
    ]) {
      const res = await api.call('POST', `/v1/properties/${propertyId}/images`, {
        body: { object_key: objectKey },
      });
      expect(res.status, objectKey).toBe(422);
    }
    const lying = await api.call('POST', `/v1/properties/${propertyId}/images`, {
      body: { object_key: mintedHtml.body.object_key },
    });
    expect(lying.status).toBe(422);
    expect(lying.body.detail[0].type).toBe('unsupported_type');
    // Nothing of it is kept: a second confirm finds no file.
    const afterwards = await api.call('POST', `/v1/properties/${propertyId}/images`, {
      body: { object_key: mintedHtml.body.object_key },
    });
    expect(afterwards.body.detail[0].type).toBe('upload_missing');
  });

  it("answers 404 for another Tenant's listing and unknown ids, 403 without properties:write", async () => {
    // Prepare
    const propertyId = await newListing();
    const readOnly = await tenant.newKey(['properties:read']);
    // Act + Assess
    const theirs = await api.call('POST', `/v1/properties/${propertyId}/images/uploads`, {
      key: other.key,
      body: { content_type: 'image/png', size_bytes: 10 },
    });
    expect(theirs.status).toBe(404);
    expect((await api.call('GET', `/v1/properties/${propertyId}/images:import/${randomUUID()}`)).status).toBe(
      404,
    );
    expect(
      (
        await api.call('PATCH', `/v1/properties/${propertyId}/images/${randomUUID()}`, {
          body: { sort_order: 1 },
        })
      ).status,
    ).toBe(404);
    const refused = await api.call('POST', `/v1/properties/${propertyId}/images:import`, {
      key: readOnly.key,
      body: { url: `${base}/photo.png` },
    });
    expect(refused.status).toBe(403);
  });
});
