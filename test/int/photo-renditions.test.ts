/**
 * Photo renditions, made by the photo import worker off the request path (sharp): a confirmed upload
 * or an import becomes a photo in the gallery with its renditions (WebP by width, a JPEG fallback),
 * EXIF orientation applied, no metadata left in a served file, each cached for good; its original kept
 * under `originals/` only. The hostile files each end as a failed confirm or import with a clear
 * reason, or as a correct rendition, and the worker takes the next message.
 *
 * On DynamoDB Local and the local S3 (s3rver) of the test run; the worker runs on this file's own
 * local queue, wrapped as its Lambda function (its AWS operations recorded).
 */
import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import type { SQSEvent } from 'aws-lambda';
import sharp, { type Stats } from 'sharp';
import { Agent, fetch as undiciFetch } from 'undici';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { galleryOf, getImageImport } from '../../functions/data/listing-images.ts';
import { getListing } from '../../functions/data/listings.ts';
import { getTenant } from '../../functions/data/tenants.ts';
import { MAX_INPUT_PIXELS, renditionUrl } from '../../functions/domain/images.ts';
import { RequestValidationError } from '../../functions/kernel/errors.ts';
import { NoPhotoCdn, setPhotoCdn } from '../../functions/kernel/ports/photo-cdn.ts';
import { setQueue } from '../../functions/kernel/ports/queue.ts';
import { requestImport } from '../../functions/services/image-imports.ts';
import { confirmUpload, deleteImage, mintUpload } from '../../functions/services/listing-images.ts';
import { createListing } from '../../functions/services/listings.ts';
import { renderPhoto } from '../../functions/services/photo-renditions.ts';
import { handler as photoWorker } from '../../functions/workers/image-import.ts';
import { bindLocalAdapters } from '../../scripts/local/adapters/index.ts';
import { LOCAL_PHOTO_BUCKET, LOCAL_S3_CREDENTIALS } from '../../scripts/local/adapters/local-photo-store.ts';
import {
  animatedGif,
  cameraJpeg,
  cmykJpeg,
  decompressionBomb,
  exifTags,
  png16,
  smallJpeg,
  truncatedJpeg,
} from '../../scripts/local/camera-photos.ts';
import { deliverDue } from '../../scripts/local/queue-poller.ts';
import { asFunction, WORKER_ENTRIES } from '../support/aws-operations.ts';
import { createTestTenant } from '../support/factories.ts';
import { ownPhotoQueue } from '../support/photo-queue.ts';
import { strictS3Put } from '../support/strict-s3.ts';

// Photos are drawn and rendered with sharp on a shared 2-core machine.
vi.setConfig({ testTimeout: 120_000 });

/** This file's own photo queue: other files' messages never reach its worker, nor its theirs. */
const { name: PHOTO_QUEUE, port: fileQueue } = ownPhotoQueue();

const worker = asFunction(WORKER_ENTRIES.imageImport, photoWorker);
const cdn = new NoPhotoCdn();
/** What the worker answered for each batch (a batch item failure is a crash or a retry). */
const answers: { batchItemFailures: unknown[] }[] = [];
async function drainPhotos(): Promise<void> {
  const run = async (event: SQSEvent) => {
    const answer = await worker(event);
    answers.push(answer);
    return answer;
  };
  while ((await deliverDue(PHOTO_QUEUE as never, run as never)) > 0) {
    // a retried message comes round again
  }
}

const s3 = new S3Client({
  region: 'us-east-1',
  endpoint: String(process.env.S3_ENDPOINT),
  forcePathStyle: true,
  credentials: LOCAL_S3_CREDENTIALS,
});
const freshConnections = new Agent({ pipelining: 0 });
const fromS3 = (url: string) => undiciFetch(url, { dispatcher: freshConnections });
const putToS3 = strictS3Put(
  LOCAL_S3_CREDENTIALS,
  (url, init) => undiciFetch(url, { ...init, dispatcher: freshConnections }) as Promise<Response>,
);

/** The keys stored under `prefix` in the local bucket. */
async function keysUnder(prefix: string): Promise<string[]> {
  const listed = await s3.send(new ListObjectsV2Command({ Bucket: LOCAL_PHOTO_BUCKET, Prefix: prefix }));
  return (listed.Contents ?? []).map((o) => o.Key ?? '').sort();
}

/** A file server for imports by URL: `/<name>` answers the bytes registered under that name. */
const served = new Map<string, Buffer>();
let origin: Server;
let base: string;

beforeAll(async () => {
  setQueue(fileQueue);
  setPhotoCdn(cdn);
  process.env.LOCAL_ALLOW_PRIVATE_URLS = '1';
  origin = createServer((req, res) => {
    const body = served.get((req.url ?? '/').slice(1));
    if (!body) return res.writeHead(404).end();
    res.writeHead(200, { 'content-type': 'application/octet-stream' }).end(body);
  });
  await new Promise<void>((done) => origin.listen(0, '127.0.0.1', () => done()));
  base = `http://127.0.0.1:${(origin.address() as AddressInfo).port}`;
});
afterAll(() => {
  origin.close();
  delete process.env.LOCAL_ALLOW_PRIVATE_URLS;
  bindLocalAdapters();
});

async function newListing() {
  const { tenantId } = await createTestTenant();
  const tenant = (await getTenant(tenantId))!;
  const { record } = await createListing({ tenant, name: 'test', via: 'api' }, { title: 'House' }, undefined);
  return { tenantId, propertyId: record.id };
}

/** Mints and PUTs (as S3 would take it) `body` as an upload of the listing; answers its key. */
async function upload(tenantId: string, propertyId: string, body: Buffer, contentType: string) {
  const minted = await mintUpload(tenantId, propertyId, {
    content_type: contentType,
    size_bytes: body.length,
  });
  const put = await putToS3(minted.url, { method: 'PUT', headers: minted.headers, body });
  expect(put.status, await put.clone().text()).toBe(200);
  return minted.objectKey;
}

/** Uploads and confirms `body`, runs the worker, and answers the import as it ended. */
async function confirmAndRender(body: Buffer, contentType: string) {
  const { tenantId, propertyId } = await newListing();
  const objectKey = await upload(tenantId, propertyId, body, contentType);
  const { image, created } = await confirmUpload(tenantId, propertyId, { object_key: objectKey });
  expect(created).toBe(true);
  expect(image.status).toBe('processing');
  // In the gallery at once, processing (nothing served yet).
  expect(galleryOf((await getListing(tenantId, propertyId))!).map((i) => [i.id, i.status])).toEqual([
    [image.id, 'processing'],
  ]);
  await drainPhotos();
  // The import of the upload has the image's id.
  const ended = await getImageImport(tenantId, propertyId, image.id);
  const gallery = galleryOf((await getListing(tenantId, propertyId))!);
  return { tenantId, propertyId, ended, gallery };
}

/** Each served file of a photo: its bytes, its headers, and what sharp reads of it. */
async function servedFiles(image: { url: string; renditions?: { file: string }[] }) {
  return Promise.all(
    (image.renditions ?? []).map(async (r) => {
      const res = await fromS3(renditionUrl(image.url, r.file));
      expect(res.status).toBe(200);
      const bytes = Buffer.from(await res.arrayBuffer());
      return { file: r.file, res, bytes, metadata: await sharp(bytes).metadata() };
    }),
  );
}

/**
 * What an image shows once in sRGB: sharp's `stats()` reads an image as it is stored, so a CMYK or
 * 16-bit file is converted first (a reading of its raw channels would be far from what it shows).
 */
async function srgbStats(image: Buffer) {
  return sharp(await sharp(image).toColourspace('srgb').png().toBuffer()).stats();
}

/**
 * How far a rendition's red, green and blue channels are from the original's (`expected`): the gap
 * between their means and between their spreads (standard deviations), channel by channel.
 */
async function channelGaps(rendition: Buffer, expected: Stats) {
  const got = await sharp(rendition).stats();
  return [0, 1, 2].map((c) => ({
    mean: Math.abs(got.channels[c]!.mean - expected.channels[c]!.mean),
    stdev: Math.abs(got.channels[c]!.stdev - expected.channels[c]!.stdev),
  }));
}

/** Runs the worker on what is queued: no message may fail (a crash would be retried, then dead-lettered). */
async function drainWithoutFailures() {
  const before = answers.length;
  await drainPhotos();
  expect(answers.slice(before).flatMap((a) => a.batchItemFailures)).toEqual([]);
}

describe('renditions of a confirmed upload', () => {
  it('orients it, strips every piece of metadata (GPS above all), serves each rendition cached for good, and keeps the original private', async () => {
    // Prepare: a photo taken in portrait, its pixels stored sideways with EXIF orientation 6 and GPS.
    const photo = await cameraJpeg({ width: 1800, height: 1200, orientation: 6 });
    const source = await sharp(photo).metadata();
    expect([source.width, source.height, source.orientation]).toEqual([1800, 1200, 6]);
    expect(exifTags(source.exif).gps.size).toBeGreaterThan(0);
    // Act
    const { tenantId, propertyId, ended, gallery } = await confirmAndRender(photo, 'image/jpeg');
    // Assess: ready, in the gallery, its files as the plan says (portrait: 1200 wide).
    expect(ended?.status).toBe('ready');
    const [image] = gallery;
    expect(image?.id).toBe(ended?.imageId);
    expect(image?.renditions?.map((r) => [r.contentType, r.width, r.height])).toEqual([
      ['image/webp', 320, 480],
      ['image/webp', 640, 960],
      ['image/webp', 1024, 1536],
      ['image/webp', 1200, 1800],
      ['image/jpeg', 1024, 1536],
    ]);
    expect(image).toMatchObject({ contentType: 'image/jpeg', width: 1024, height: 1536 });
    const files = await servedFiles(image!);
    for (const f of files) {
      // No EXIF (GPS, camera), XMP, IPTC or ICC profile: nothing but the pixels.
      expect(
        [f.metadata.exif, f.metadata.xmp, f.metadata.iptc, f.metadata.icc, f.metadata.orientation],
        f.file,
      ).toEqual([undefined, undefined, undefined, undefined, undefined]);
      expect(f.bytes.includes(Buffer.from('TestCam')), f.file).toBe(false);
      expect(f.res.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
      // The house is upright: sky at the top, lawn at the bottom.
      const { data, info } = await sharp(f.bytes)
        .resize(4, 8, { fit: 'fill' })
        .raw()
        .toBuffer({ resolveWithObject: true });
      const at = (row: number) => [...data.subarray(row * 4 * info.channels, row * 4 * info.channels + 3)];
      const [skyR, , skyB] = at(0);
      const [lawnR, lawnG, lawnB] = at(7);
      expect(skyB! > skyR!, `${f.file}: sky at the top`).toBe(true);
      expect(lawnG! > lawnR! && lawnG! > lawnB!, `${f.file}: lawn at the bottom`).toBe(true);
    }
    // The default URL is the JPEG rendition; the original is under originals/ only, never images/.
    expect(image?.url).toBe(renditionUrl(image!.url, image!.renditions!.at(-1)!.file));
    expect(image?.key).toMatch(new RegExp(`^originals/${tenantId}/${propertyId}/`));
    expect(await keysUnder(`originals/${tenantId}/${propertyId}/`)).toEqual([image?.key]);
    expect(await keysUnder(`images/${tenantId}/${propertyId}/`)).toEqual(
      image!.renditions!.map((r) => `images/${tenantId}/${propertyId}/${r.file}`).sort(),
    );
    expect(await keysUnder(`uploads/${tenantId}/${propertyId}/`)).toEqual([]);
  });

  it('answers a repeated confirm with the same image, and deletes every file of a deleted photo, then invalidates its CDN paths', async () => {
    // Prepare
    const { tenantId, propertyId } = await newListing();
    const objectKey = await upload(tenantId, propertyId, await smallJpeg(), 'image/jpeg');
    const first = await confirmUpload(tenantId, propertyId, { object_key: objectKey });
    await drainWithoutFailures();
    const again = await confirmUpload(tenantId, propertyId, { object_key: objectKey });
    const [image] = galleryOf((await getListing(tenantId, propertyId))!);
    const invalidatedBefore = cdn.invalidated.length;
    // Act
    await deleteImage(tenantId, propertyId, image!.id, 'test');
    const filesRightAfter = [
      ...(await keysUnder(`images/${tenantId}/${propertyId}/`)),
      ...(await keysUnder(`originals/${tenantId}/${propertyId}/`)),
    ];
    await drainWithoutFailures();
    // Assess
    expect(again).toMatchObject({ created: false, image: { id: first.image.id } });
    expect(again.image.status).toBeUndefined();
    expect(filesRightAfter).toEqual([]);
    expect(cdn.invalidated.slice(invalidatedBefore)).toEqual([
      [`/images/${tenantId}/${propertyId}/${image!.id}-*`],
    ]);
  });
});

describe('a processing image', () => {
  it('deleted before its renditions are made: the worker stores nothing, and the gallery stays without it', async () => {
    // Prepare
    const { tenantId, propertyId } = await newListing();
    const objectKey = await upload(tenantId, propertyId, await smallJpeg(), 'image/jpeg');
    const { image } = await confirmUpload(tenantId, propertyId, { object_key: objectKey });
    expect(image.status).toBe('processing');
    // Act
    await deleteImage(tenantId, propertyId, image.id, 'test');
    await drainWithoutFailures();
    // Assess
    expect(galleryOf((await getListing(tenantId, propertyId))!)).toEqual([]);
    expect(await keysUnder(`images/${tenantId}/${propertyId}/`)).toEqual([]);
    expect(await keysUnder(`originals/${tenantId}/${propertyId}/`)).toEqual([]);
    expect((await getImageImport(tenantId, propertyId, image.id))?.status).not.toBe('pending');
    const again = await confirmUpload(tenantId, propertyId, { object_key: objectKey }).catch(
      (error: unknown) => error,
    );
    expect((again as RequestValidationError).issues).toMatchObject([{ type: 'upload_missing' }]);
  });
});

describe('hostile files', () => {
  it('a decompression bomb (30,000 × 30,000 declared in 177 bytes) is refused at confirm and fails its import, too_many_pixels, before any decoding', async () => {
    // Prepare
    const bomb = decompressionBomb();
    expect(bomb.length).toBeLessThan(1024);
    const { tenantId, propertyId } = await newListing();
    served.set(`bomb-${propertyId}.png`, bomb);
    // Act
    const objectKey = await upload(tenantId, propertyId, bomb, 'image/png');
    const refused = await confirmUpload(tenantId, propertyId, { object_key: objectKey }).catch(
      (error: unknown) => error,
    );
    const { record } = await requestImport(tenantId, propertyId, { url: `${base}/bomb-${propertyId}.png` });
    const rssBefore = process.memoryUsage().rss;
    await drainWithoutFailures();
    const rssGrowth = process.memoryUsage().rss - rssBefore;
    // libvips itself refuses it too (limitInputPixels), should a file's header lie to the first check:
    // at this service's limit, below libvips' own default (268 megapixels).
    const rendered = await renderPhoto(randomUUID(), bomb);
    const aboveOurLimit = await renderPhoto(randomUUID(), decompressionBomb(12_000, 12_000));
    // Assess
    expect(refused).toBeInstanceOf(RequestValidationError);
    expect((refused as RequestValidationError).issues).toMatchObject([
      { loc: ['body', 'object_key'], type: 'too_many_pixels' },
    ]);
    expect(await keysUnder(objectKey)).toEqual([]);
    expect(await getImageImport(tenantId, propertyId, record.id)).toMatchObject({
      status: 'failed',
      failureReason: 'too_many_pixels',
    });
    expect(rendered).toMatchObject({ ok: false, reason: 'too_many_pixels' });
    expect(aboveOurLimit).toMatchObject({ ok: false, reason: 'too_many_pixels' });
    expect(30_000 * 30_000).toBeGreaterThan(MAX_INPUT_PIXELS);
    // 2.7 GB of pixels were never allocated.
    expect(rssGrowth).toBeLessThan(200 * 1024 * 1024);
    expect(galleryOf((await getListing(tenantId, propertyId))!)).toEqual([]);
  });

  it('a truncated JPEG ends its confirm failed, unreadable_image, keeping nothing', async () => {
    // Act
    const { tenantId, propertyId, ended, gallery } = await confirmAndRender(
      await truncatedJpeg(),
      'image/jpeg',
    );
    // Assess
    expect(ended).toMatchObject({ status: 'failed', failureReason: 'unreadable_image' });
    expect(ended?.failureDetail).toMatch(/premature end|truncated/i);
    expect(gallery).toEqual([]);
    expect(await keysUnder(`originals/${tenantId}/${propertyId}/`)).toEqual([]);
    expect(await keysUnder(`images/${tenantId}/${propertyId}/`)).toEqual([]);
    expect(answers.at(-1)?.batchItemFailures).toEqual([]);
  });

  it('a CMYK JPEG becomes sRGB renditions of the same colours', async () => {
    // Prepare
    const cmyk = await cmykJpeg();
    expect((await sharp(cmyk).metadata()).space).toBe('cmyk');
    // What the file shows: a reading of its four channels as RGB and alpha would be far from it.
    const expected = await srgbStats(cmyk);
    // Act
    const { ended, gallery } = await confirmAndRender(cmyk, 'image/jpeg');
    // Assess
    expect(ended?.status).toBe('ready');
    for (const f of await servedFiles(gallery[0]!)) {
      expect([f.metadata.space, f.metadata.channels, f.metadata.depth], f.file).toEqual(['srgb', 3, 'uchar']);
      for (const [c, gap] of (await channelGaps(f.bytes, expected)).entries()) {
        expect(gap.mean, `${f.file} channel ${c}`).toBeLessThan(6);
      }
    }
  });

  it('a 16-bit PNG becomes 8-bit renditions', async () => {
    // Prepare
    const deep = await png16();
    expect((await sharp(deep).metadata()).depth).toBe('ushort');
    const expected = await srgbStats(deep);
    // Act
    const { ended, gallery } = await confirmAndRender(deep, 'image/png');
    // Assess
    expect(ended?.status).toBe('ready');
    expect(gallery[0]?.renditions?.map((r) => r.width)).toEqual([320, 640, 800, 800]);
    for (const f of await servedFiles(gallery[0]!)) {
      expect([f.metadata.depth, f.metadata.channels, f.metadata.pages ?? 1], f.file).toEqual(['uchar', 3, 1]);
      // The same picture: its 16-bit samples read as such, not as pairs of 8-bit ones.
      for (const [c, gap] of (await channelGaps(f.bytes, expected)).entries()) {
        expect(gap.mean, `${f.file} channel ${c}`).toBeLessThan(6);
        expect(gap.stdev, `${f.file} channel ${c}`).toBeLessThan(12);
      }
    }
  });

  it('an animated GIF becomes still renditions of its first frame', async () => {
    // Prepare
    const gif = await animatedGif();
    expect((await sharp(gif).metadata()).pages).toBe(2);
    // Act
    const { ended, gallery } = await confirmAndRender(gif, 'image/gif');
    // Assess
    expect(ended?.status).toBe('ready');
    for (const f of await servedFiles(gallery[0]!)) {
      expect(f.metadata.pages ?? 1, f.file).toBe(1);
      const { channels } = await sharp(f.bytes).stats();
      // Red, the first frame (the second is green).
      expect([channels[0]!.mean > 200, channels[1]!.mean < 40], f.file).toEqual([true, true]);
    }
  });
});
