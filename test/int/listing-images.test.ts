/**
 * Confirming an upload keeps exactly the file it inspected: a same-size re-PUT to the upload key
 * while a confirm runs must not land its unchecked bytes as the photo's original (`originals/`), from
 * which the renditions are made.
 *
 * The bucket is the local S3 (s3rver) of the test run. s3rver ignores `If-Match` and
 * `x-amz-copy-source-if-match`, so the store below adds S3's documented answer to them (412 when the
 * object is no longer the version named, here PhotoChangedError) on top of it; that the S3 adapter
 * sends those conditions and maps S3's 412 is proven in test/unit/photo-store.test.ts.
 */
import { ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { Agent, fetch as undiciFetch } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getListing } from '../../functions/data/listings.ts';
import { getTenant } from '../../functions/data/tenants.ts';
import { RequestValidationError } from '../../functions/kernel/errors.ts';
import {
  PhotoChangedError,
  type PhotoStorePort,
  type StoredObject,
  setPhotoStore,
} from '../../functions/kernel/ports/photo-store.ts';
import { confirmUpload, mintUpload } from '../../functions/services/listing-images.ts';
import { createListing } from '../../functions/services/listings.ts';
import { bindLocalAdapters } from '../../scripts/local/adapters/index.ts';
import {
  LOCAL_PHOTO_BUCKET,
  LOCAL_S3_CREDENTIALS,
  localPhotoStore,
} from '../../scripts/local/adapters/local-photo-store.ts';
import { pngFile } from '../../scripts/local/image-files.ts';
import { createTestTenant } from '../support/factories.ts';
import { strictS3Put } from '../support/strict-s3.ts';

/**
 * The local S3 with S3's conditional reads and copies, and a hook that runs once after the first
 * read of an upload: where the test re-PUTs the file while the confirm is between its check and
 * its copy.
 */
class ConditionalLocalS3 implements PhotoStorePort {
  readonly local = localPhotoStore();
  afterFirstRead: (() => Promise<void>) | undefined;

  async #requireVersion(key: string, version: string): Promise<void> {
    const now = await this.local.head(key);
    if (now?.version !== version) throw new PhotoChangedError(key);
  }
  presignPut: PhotoStorePort['presignPut'] = (...args) => this.local.presignPut(...args);
  head(key: string): Promise<StoredObject | undefined> {
    return this.local.head(key);
  }
  async readStart(key: string, bytes: number, version: string): Promise<Buffer> {
    // As S3: the object is held to a version only when the request names one.
    if (version !== undefined) await this.#requireVersion(key, version);
    const read = await this.local.readStart(key, bytes, version);
    const hook = this.afterFirstRead;
    this.afterFirstRead = undefined;
    await hook?.();
    return read;
  }
  read: PhotoStorePort['read'] = (key) => this.local.read(key);
  put: PhotoStorePort['put'] = (...args) => this.local.put(...args);
  async copy(fromKey: string, toKey: string, contentType: string, version: string): Promise<void> {
    if (version !== undefined) await this.#requireVersion(fromKey, version);
    await this.local.copy(fromKey, toKey, contentType, version);
  }
  delete: PhotoStorePort['delete'] = (key) => this.local.delete(key);
  publicUrl: PhotoStorePort['publicUrl'] = (key) => this.local.publicUrl(key);
}

const s3 = new S3Client({
  region: 'us-east-1',
  endpoint: String(process.env.S3_ENDPOINT),
  forcePathStyle: true,
  credentials: LOCAL_S3_CREDENTIALS,
});
const store = new ConditionalLocalS3();
/**
 * PUTs to a presigned URL, judged as S3 would before they reach the local S3; each on a fresh
 * connection (s3rver closes idle keep-alive connections on its own timer: ECONNRESET otherwise).
 */
const freshConnections = new Agent({ pipelining: 0 });
const putToS3 = strictS3Put(
  LOCAL_S3_CREDENTIALS,
  (url, init) => undiciFetch(url, { ...init, dispatcher: freshConnections }) as Promise<Response>,
);
/** Uploads `body` to a minted upload with the headers it hands out; S3's answer must be 200. */
async function upload(minted: { url: string; headers: Record<string, string> }, body: Buffer) {
  const put = await putToS3(minted.url, { method: 'PUT', headers: minted.headers, body });
  expect(put.status, await put.clone().text()).toBe(200);
}

beforeAll(() => {
  setPhotoStore(store);
});
afterAll(() => {
  bindLocalAdapters();
});

async function newListing() {
  const { tenantId } = await createTestTenant();
  const tenant = (await getTenant(tenantId))!;
  const { record } = await createListing({ tenant, name: 'test', via: 'api' }, { title: 'Loft' }, undefined);
  return { tenantId, propertyId: record.id };
}

describe('confirmUpload', () => {
  it('never copies bytes PUT again after the check: 422 upload_changed, nothing under originals/, the new file judged on the next confirm', async () => {
    // Prepare: a real PNG uploaded; during the confirm, an HTML page of the same size is PUT to the
    // same presigned URL (still valid, same signed type and size), replacing it.
    const { tenantId, propertyId } = await newListing();
    const png = pngFile(40, 30);
    const html = Buffer.from(`<html>${'x'.repeat(png.length - 13)}</html>`);
    expect(html.length).toBe(png.length);
    const minted = await mintUpload(tenantId, propertyId, {
      content_type: 'image/png',
      size_bytes: png.length,
    });
    await upload(minted, png);
    store.afterFirstRead = () => upload(minted, html);
    // Act
    const racing = confirmUpload(tenantId, propertyId, { object_key: minted.objectKey }).catch(
      (error: unknown) => error,
    );
    const raced = await racing;
    const again = await confirmUpload(tenantId, propertyId, { object_key: minted.objectKey }).catch(
      (error: unknown) => error,
    );
    // Assess
    expect(raced).toBeInstanceOf(RequestValidationError);
    expect((raced as RequestValidationError).issues).toMatchObject([
      { loc: ['body', 'object_key'], type: 'upload_changed' },
    ]);
    for (const prefix of ['originals', 'images']) {
      const copied = await s3.send(
        new ListObjectsV2Command({
          Bucket: LOCAL_PHOTO_BUCKET,
          Prefix: `${prefix}/${tenantId}/${propertyId}/`,
        }),
      );
      expect(copied.KeyCount ?? 0, prefix).toBe(0);
    }
    expect((await getListing(tenantId, propertyId))?.images ?? []).toEqual([]);
    // Confirmed again, the replacing file is inspected for what it is.
    expect((again as RequestValidationError).issues).toMatchObject([{ type: 'unsupported_type' }]);
  });
});
