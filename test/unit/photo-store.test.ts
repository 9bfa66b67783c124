/**
 * The S3 photo store (functions/kernel/ports/photo-store.ts) at the SDK edge: the presigned PUT
 * signs Content-Type and Content-Length (the local S3 checks no signature, so it is proven here),
 * and each call sends the command and input S3 expects, with S3's answers and errors taken as meant.
 */
import {
  CopyObjectCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  NotFound,
  PutObjectCommand,
  S3Client,
  S3ServiceException,
} from '@aws-sdk/client-s3';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { RENDITION_CACHE_CONTROL } from '../../functions/domain/images.ts';
import { PhotoChangedError, S3PhotoStore } from '../../functions/kernel/ports/photo-store.ts';
import { s3RefusalOfPresignedPut, uploadContractProblems } from '../support/strict-s3.ts';

const s3 = mockClient(S3Client);
const BUCKET = 'photos-bucket';
const CDN = 'https://d111111abcdef8.cloudfront.net';
const store = () =>
  new S3PhotoStore({
    bucket: BUCKET,
    publicBaseUrl: `${CDN}/`,
    client: { region: 'eu-west-1', credentials: { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'secret' } },
  });

beforeEach(() => {
  s3.reset();
});
afterAll(() => {
  s3.restore();
});

describe('S3PhotoStore.presignPut', () => {
  it('signs Content-Type and Content-Length into a PUT of that key, valid for the time asked', async () => {
    // Prepare
    const key = 'uploads/t-1/p-1/0b6f5a1e-8d3c-4f0e-9a51-3f1c2a9b7d10-2048';
    const before = Date.now();
    // Act
    const signed = await store().presignPut(key, { contentType: 'image/png', sizeBytes: 2048 }, 900);
    // Assess
    const url = new URL(signed.url);
    expect(url.hostname).toBe(`${BUCKET}.s3.eu-west-1.amazonaws.com`);
    expect(url.pathname).toBe(`/${key}`);
    expect(url.searchParams.get('X-Amz-Algorithm')).toBe('AWS4-HMAC-SHA256');
    expect(url.searchParams.get('X-Amz-Expires')).toBe('900');
    expect(url.searchParams.get('X-Amz-SignedHeaders')?.split(';').sort()).toEqual([
      'content-length',
      'content-type',
      'host',
    ]);
    expect(url.searchParams.get('X-Amz-Signature')).toMatch(/^[0-9a-f]{64}$/);
    expect(signed).toMatchObject({
      method: 'PUT',
      headers: { 'Content-Type': 'image/png', 'Content-Length': '2048' },
    });
    const expires = Date.parse(signed.expiresAt);
    expect(expires).toBeGreaterThanOrEqual(Math.floor(before / 1000) * 1000 + 900_000);
    expect(expires).toBeLessThanOrEqual(Date.now() + 900_000);
  });

  it('fixes no checksum in the URL, so S3 stores the real file PUT with the headers handed out', async () => {
    // Prepare: the SDK (>= 3.729) computes checksums WHEN_SUPPORTED by default, which at presign time
    // signs the CRC32 of an empty body (AAAAAA==) into the URL; S3 answers any real file BadDigest.
    const file = Buffer.from('GIF89a, then the rest of a photo');
    const key = `uploads/t-1/p-1/0b6f5a1e-8d3c-4f0e-9a51-3f1c2a9b7d10-${file.length}`;
    const credentials = { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'secret' };
    // Act
    const signed = await store().presignPut(key, { contentType: 'image/gif', sizeBytes: file.length }, 900);
    const refused = await s3RefusalOfPresignedPut(
      { url: signed.url, headers: signed.headers, body: file },
      credentials,
    );
    // Assess
    const params = [...new URL(signed.url).searchParams.keys()].map((k) => k.toLowerCase());
    expect(params.filter((k) => k.includes('checksum'))).toEqual([]);
    expect(uploadContractProblems(signed)).toEqual([]);
    expect(refused).toBeUndefined();
  });

  it('gives another signature for another size or type at the same instant: S3 would refuse a PUT that differs', async () => {
    // Prepare
    const key = 'uploads/t-1/p-1/0b6f5a1e-8d3c-4f0e-9a51-3f1c2a9b7d10-2048';
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(new Date('2026-11-24T01:00:00Z'));
    const signature = async (contentType: string, sizeBytes: number) =>
      new URL((await store().presignPut(key, { contentType, sizeBytes }, 900)).url).searchParams.get(
        'X-Amz-Signature',
      );
    try {
      // Act
      const png = await signature('image/png', 2048);
      const samePng = await signature('image/png', 2048);
      const jpeg = await signature('image/jpeg', 2048);
      const larger = await signature('image/png', 2049);
      // Assess
      expect(samePng).toBe(png);
      expect(new Set([png, jpeg, larger]).size).toBe(3);
    } finally {
      vi.useRealTimers();
    }
  });
});

describe('S3PhotoStore calls', () => {
  it('HeadObject gives the size; a missing key is undefined; another error is thrown', async () => {
    // Prepare
    s3.on(HeadObjectCommand, { Key: 'uploads/a' })
      .resolves({ ContentLength: 1234, ETag: '"9b2cf535f27731c974343645a3985328"' })
      .on(HeadObjectCommand, { Key: 'uploads/missing' })
      .rejects(new NotFound({ message: 'Not Found', $metadata: { httpStatusCode: 404 } }))
      .on(HeadObjectCommand, { Key: 'uploads/denied' })
      .rejects(
        new S3ServiceException({
          name: 'AccessDenied',
          $fault: 'client',
          message: 'Access Denied',
          $metadata: { httpStatusCode: 403 },
        }),
      );
    // Act
    const found = await store().head('uploads/a');
    const missing = await store().head('uploads/missing');
    const denied = store().head('uploads/denied');
    // Assess
    expect(found).toEqual({ sizeBytes: 1234, version: '"9b2cf535f27731c974343645a3985328"' });
    expect(missing).toBeUndefined();
    await expect(denied).rejects.toThrow(/Access Denied/);
    expect(s3.commandCalls(HeadObjectCommand)[0]?.args[0].input).toEqual({
      Bucket: BUCKET,
      Key: 'uploads/a',
    });
  });

  it('reads the start of exactly the version looked at: a Range, If-Match its ETag', async () => {
    // Prepare
    // The SDK's streaming body, as far as the store uses it.
    const body = { transformToByteArray: async () => new Uint8Array([0x89, 0x50, 0x4e, 0x47]) };
    s3.on(GetObjectCommand).resolves({ Body: body as never });
    // Act
    const bytes = await store().readStart('uploads/a', 4100, '"etag-1"');
    // Assess
    expect([...bytes]).toEqual([0x89, 0x50, 0x4e, 0x47]);
    expect(s3.commandCalls(GetObjectCommand)[0]?.args[0].input).toEqual({
      Bucket: BUCKET,
      Key: 'uploads/a',
      Range: 'bytes=0-4099',
      IfMatch: '"etag-1"',
    });
  });

  it("takes S3's 412 (replaced) and 404 (removed) on a conditional read or copy as PhotoChangedError", async () => {
    // Prepare: S3's answers when the object is no longer the version named.
    const preconditionFailed = new S3ServiceException({
      name: 'PreconditionFailed',
      $fault: 'client',
      message: 'At least one of the pre-conditions you specified did not hold',
      $metadata: { httpStatusCode: 412 },
    });
    const removed = new S3ServiceException({
      name: 'NoSuchKey',
      $fault: 'client',
      message: 'The specified key does not exist.',
      $metadata: { httpStatusCode: 404 },
    });
    const denied = new S3ServiceException({
      name: 'AccessDenied',
      $fault: 'client',
      message: 'Access Denied',
      $metadata: { httpStatusCode: 403 },
    });
    s3.on(GetObjectCommand, { Key: 'uploads/replaced' })
      .rejects(preconditionFailed)
      .on(GetObjectCommand, { Key: 'uploads/removed' })
      .rejects(removed)
      .on(CopyObjectCommand, { CopySource: `${BUCKET}/uploads/replaced` })
      .rejects(preconditionFailed)
      .on(CopyObjectCommand, { CopySource: `${BUCKET}/uploads/denied` })
      .rejects(denied);
    // Act
    const readReplaced = store().readStart('uploads/replaced', 10, '"v1"');
    const readRemoved = store().readStart('uploads/removed', 10, '"v1"');
    const copyReplaced = store().copy('uploads/replaced', 'images/t/p/i.png', 'image/png', '"v1"');
    const copyDenied = store().copy('uploads/denied', 'images/t/p/i.png', 'image/png', '"v1"');
    // Assess
    await expect(readReplaced).rejects.toBeInstanceOf(PhotoChangedError);
    await expect(readRemoved).rejects.toBeInstanceOf(PhotoChangedError);
    await expect(copyReplaced).rejects.toBeInstanceOf(PhotoChangedError);
    await expect(copyDenied).rejects.toThrow(/Access Denied/);
  });

  it('puts a rendition with its Cache-Control and an original with none, copies the version checked (the type read from the file) and deletes by key', async () => {
    // Prepare
    s3.on(PutObjectCommand)
      .resolves({})
      .on(CopyObjectCommand)
      .resolves({})
      .on(DeleteObjectCommand)
      .resolves({});
    const body = Buffer.from('RIFF....WEBP');
    // Act
    await store().put('images/t/p/i-640w-0123456789abcdef.webp', body, 'image/webp', RENDITION_CACHE_CONTROL);
    await store().put('originals/t/p/i.gif', body, 'image/gif');
    await store().copy('uploads/t/p/u 1', 'originals/t/p/i.png', 'image/png', '"etag-1"');
    await store().delete('uploads/t/p/u 1');
    // Assess
    expect(s3.commandCalls(PutObjectCommand).map((c) => c.args[0].input)).toEqual([
      {
        Bucket: BUCKET,
        Key: 'images/t/p/i-640w-0123456789abcdef.webp',
        Body: body,
        ContentType: 'image/webp',
        CacheControl: 'public, max-age=31536000, immutable',
      },
      { Bucket: BUCKET, Key: 'originals/t/p/i.gif', Body: body, ContentType: 'image/gif' },
    ]);
    expect(s3.commandCalls(CopyObjectCommand)[0]?.args[0].input).toEqual({
      Bucket: BUCKET,
      Key: 'originals/t/p/i.png',
      CopySource: `${BUCKET}/uploads/t/p/u%201`,
      CopySourceIfMatch: '"etag-1"',
      ContentType: 'image/png',
      MetadataDirective: 'REPLACE',
    });
    expect(s3.commandCalls(DeleteObjectCommand)[0]?.args[0].input).toEqual({
      Bucket: BUCKET,
      Key: 'uploads/t/p/u 1',
    });
  });

  it('reads a whole object, and nothing for a missing one', async () => {
    // Prepare
    const body = { transformToByteArray: async () => new Uint8Array([0xff, 0xd8, 0xff]) };
    s3.on(GetObjectCommand, { Key: 'originals/t/p/a.jpg' })
      .resolves({ Body: body as never })
      .on(GetObjectCommand, { Key: 'originals/t/p/gone.jpg' })
      .rejects(
        new S3ServiceException({
          name: 'NoSuchKey',
          $fault: 'client',
          message: 'The specified key does not exist.',
          $metadata: { httpStatusCode: 404 },
        }),
      );
    // Act
    const found = await store().read('originals/t/p/a.jpg');
    const missing = await store().read('originals/t/p/gone.jpg');
    // Assess
    expect([...(found ?? [])]).toEqual([0xff, 0xd8, 0xff]);
    expect(missing).toBeUndefined();
    expect(s3.commandCalls(GetObjectCommand)[0]?.args[0].input).toEqual({
      Bucket: BUCKET,
      Key: 'originals/t/p/a.jpg',
    });
  });

  it('serves a key from the public base, each segment encoded', () => {
    expect(store().publicUrl('images/t-1/p-1/a b.jpg')).toBe(`${CDN}/images/t-1/p-1/a%20b.jpg`);
  });
});
