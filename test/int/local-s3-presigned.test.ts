/**
 * The local S3 of `npm start` holds a presigned upload to what S3 holds it to (docs/photos.md): the
 * URLs are minted by the service's own presign path (the photo store's `presignPut`, as `POST
 * …/images/uploads` mints them), then sent as minted, or tampered, with a raw HTTP client that sends
 * exactly the headers given (as curl does). Each refusal must be S3's status and error code, and
 * store nothing.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type PresignedUpload, S3PhotoStore } from '../../functions/kernel/ports/photo-store.ts';
import {
  LOCAL_PHOTO_BUCKET,
  LOCAL_S3_CREDENTIALS,
  localPhotoStore,
} from '../../scripts/local/adapters/local-photo-store.ts';
import { type LocalS3, startLocalS3 } from '../../scripts/local/adapters/local-s3.ts';

let s3: LocalS3;
let directory: string;
let n = 0;

const PNG = Buffer.concat([Buffer.from('89504e470d0a1a0a', 'hex'), Buffer.alloc(56, 7)]);

interface Answer {
  status: number;
  body: string;
}

/** Sends exactly these headers (none added but Host), like curl. */
function send(
  method: string,
  url: string,
  headers: Record<string, string>,
  body?: Buffer,
  chunked = false,
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }),
      );
    });
    req.on('error', reject);
    if (chunked && body) {
      req.write(body.subarray(0, 10));
      req.end(body.subarray(10));
    } else {
      req.end(body);
    }
  });
}

/** S3's error document: its Code and Message. */
function s3Error(answer: Answer): { code?: string | undefined; message?: string | undefined } {
  return {
    code: /<Code>([^<]*)<\/Code>/.exec(answer.body)?.[1],
    message: /<Message>([^<]*)<\/Message>/.exec(answer.body)?.[1],
  };
}

/** A fresh upload of the PNG above, minted as the uploads route mints it. */
async function mint(
  options: { expiresIn?: number; credentials?: { accessKeyId: string; secretAccessKey: string } } = {},
): Promise<PresignedUpload & { key: string }> {
  const key = `uploads/t1/l1/upload-${++n}-${PNG.length}`;
  const store = options.credentials
    ? localPhotoStoreWith(options.credentials)
    : localPhotoStore({ S3_ENDPOINT: s3.endpoint, PHOTO_BUCKET: LOCAL_PHOTO_BUCKET });
  const upload = await store.presignPut(
    key,
    { contentType: 'image/png', sizeBytes: PNG.length },
    options.expiresIn ?? 900,
  );
  return { ...upload, key };
}

/** The same presign path with other credentials (a URL S3 would not know the signer of). */
function localPhotoStoreWith(credentials: { accessKeyId: string; secretAccessKey: string }): S3PhotoStore {
  return new S3PhotoStore({
    bucket: LOCAL_PHOTO_BUCKET,
    publicBaseUrl: `${s3.endpoint}/${LOCAL_PHOTO_BUCKET}`,
    client: { endpoint: s3.endpoint, forcePathStyle: true, credentials },
  });
}

async function stored(key: string): Promise<number> {
  return (await send('GET', `${s3.endpoint}/${LOCAL_PHOTO_BUCKET}/${key}`, {})).status;
}

beforeAll(async () => {
  directory = mkdtempSync(join(tmpdir(), 'lls-local-s3-'));
  s3 = await startLocalS3({ directory });
});
afterAll(async () => {
  await s3?.close();
  if (directory) rmSync(directory, { recursive: true, force: true });
});

describe('the local S3 and a presigned PUT', () => {
  it('stores the file sent as minted: the URL and exactly the headers handed out', async () => {
    const upload = await mint();
    const answer = await send('PUT', upload.url, upload.headers, PNG);
    expect(answer.status, answer.body).toBe(200);
    const read = await send('GET', `${s3.endpoint}/${LOCAL_PHOTO_BUCKET}/${upload.key}`, {});
    expect(read.status).toBe(200);
  });

  it('a tampered signature: 403 SignatureDoesNotMatch', async () => {
    const upload = await mint();
    const url = new URL(upload.url);
    const signature = url.searchParams.get('X-Amz-Signature') ?? '';
    url.searchParams.set(
      'X-Amz-Signature',
      `${signature.slice(0, -1)}${signature.endsWith('0') ? '1' : '0'}`,
    );
    const answer = await send('PUT', url.toString(), upload.headers, PNG);
    expect(answer.status).toBe(403);
    expect(s3Error(answer).code).toBe('SignatureDoesNotMatch');
    expect(await stored(upload.key)).toBe(404);
  });

  it('another Content-Type than the signed one: 403 SignatureDoesNotMatch', async () => {
    const upload = await mint();
    const answer = await send('PUT', upload.url, { ...upload.headers, 'Content-Type': 'text/html' }, PNG);
    expect(answer.status).toBe(403);
    expect(s3Error(answer).code).toBe('SignatureDoesNotMatch');
    expect(await stored(upload.key)).toBe(404);
  });

  it('a larger file than the signed size: 403 SignatureDoesNotMatch', async () => {
    const upload = await mint();
    const larger = Buffer.concat([PNG, Buffer.alloc(1000, 1)]);
    const answer = await send(
      'PUT',
      upload.url,
      { ...upload.headers, 'Content-Length': String(larger.length) },
      larger,
    );
    expect(answer.status).toBe(403);
    expect(s3Error(answer).code).toBe('SignatureDoesNotMatch');
    expect(await stored(upload.key)).toBe(404);
  });

  it('the URL pointed at another key: 403 SignatureDoesNotMatch', async () => {
    const upload = await mint();
    const url = new URL(upload.url);
    url.pathname = url.pathname.replace(/upload-\d+/, 'elsewhere');
    const answer = await send('PUT', url.toString(), upload.headers, PNG);
    expect(answer.status).toBe(403);
    expect(s3Error(answer).code).toBe('SignatureDoesNotMatch');
  });

  it('an expired URL: 403 AccessDenied, "Request has expired"', async () => {
    const upload = await mint({ expiresIn: 1 });
    await new Promise((r) => setTimeout(r, 2_100));
    const answer = await send('PUT', upload.url, upload.headers, PNG);
    expect(answer.status).toBe(403);
    expect(s3Error(answer)).toEqual({ code: 'AccessDenied', message: 'Request has expired' });
    expect(await stored(upload.key)).toBe(404);
  });

  it('an x-amz- header that is not signed: 403 AccessDenied', async () => {
    const upload = await mint();
    const answer = await send('PUT', upload.url, { ...upload.headers, 'x-amz-acl': 'public-read' }, PNG);
    expect(answer.status).toBe(403);
    expect(s3Error(answer)).toEqual({
      code: 'AccessDenied',
      message: 'There were headers present in the request which were not signed',
    });
    expect(await stored(upload.key)).toBe(404);
  });

  it('signed with a key the bucket does not know: 403 InvalidAccessKeyId', async () => {
    const upload = await mint({
      credentials: { accessKeyId: 'AKIAOTHERACCOUNT', secretAccessKey: 'x'.repeat(40) },
    });
    const answer = await send('PUT', upload.url, upload.headers, PNG);
    expect(answer.status).toBe(403);
    expect(s3Error(answer).code).toBe('InvalidAccessKeyId');
  });

  it('the right key id with another secret: 403 SignatureDoesNotMatch', async () => {
    const upload = await mint({ credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'not-the-secret' } });
    const answer = await send('PUT', upload.url, upload.headers, PNG);
    expect(answer.status).toBe(403);
    expect(s3Error(answer).code).toBe('SignatureDoesNotMatch');
  });

  it("a browser's CORS preflight of the URL is answered by the bucket's CORS rule", async () => {
    const upload = await mint();
    const answer = await send('OPTIONS', upload.url, {
      Origin: 'http://localhost:3000',
      'Access-Control-Request-Method': 'PUT',
      'Access-Control-Request-Headers': 'content-type',
    });
    expect(answer.status).toBe(200);
  });

  it('a URL that fixes a checksum of other bytes (a presigner computing one for no body): 400 BadDigest', async () => {
    // The SDK's default checksum mode signs the CRC32 of an empty body into the URL.
    const client = new S3Client({
      endpoint: s3.endpoint,
      forcePathStyle: true,
      region: 'us-east-1',
      credentials: LOCAL_S3_CREDENTIALS,
      requestChecksumCalculation: 'WHEN_SUPPORTED',
    });
    const key = `uploads/t1/l1/checksum-${++n}`;
    const url = await getSignedUrl(
      client,
      new PutObjectCommand({
        Bucket: LOCAL_PHOTO_BUCKET,
        Key: key,
        ContentType: 'image/png',
        ChecksumAlgorithm: 'CRC32',
      }),
      { expiresIn: 900 },
    );
    expect(url).toMatch(/x-amz-checksum-crc32=/i);
    const answer = await send(
      'PUT',
      url,
      { 'Content-Type': 'image/png', 'Content-Length': String(PNG.length) },
      PNG,
    );
    expect(answer.status).toBe(400);
    expect(s3Error(answer).code).toBe('BadDigest');
    expect(await stored(key)).toBe(404);
  });

  it('no Content-Length (a chunked body): 411 MissingContentLength', async () => {
    const upload = await mint();
    const { 'Content-Length': _length, ...headers } = upload.headers;
    const answer = await send('PUT', upload.url, { ...headers, 'Transfer-Encoding': 'chunked' }, PNG, true);
    expect(answer.status).toBe(411);
    expect(s3Error(answer).code).toBe('MissingContentLength');
  });
});
