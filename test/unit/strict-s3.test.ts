/**
 * The strict S3 checker of test/support/strict-s3.ts judges presigned PUTs as S3 documents it does:
 * each rule here is shown refusing the request it exists for, on URLs presigned by the service's own
 * S3 adapter (functions/kernel/ports/photo-store.ts) with the test's credentials.
 */

import { PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { describe, expect, it } from 'vitest';
import { S3PhotoStore } from '../../functions/kernel/ports/photo-store.ts';
import {
  type PresignedPutRequest,
  s3RefusalOfPresignedPut,
  strictS3Put,
  uploadContractProblems,
} from '../support/strict-s3.ts';

const CREDENTIALS = { accessKeyId: 'AKIDSTRICT', secretAccessKey: 'strict-secret' };
const KEY = 'uploads/t-1/p-1/0b6f5a1e-8d3c-4f0e-9a51-3f1c2a9b7d10-6';
const BODY = Buffer.from('GIF89a');
const store = new S3PhotoStore({
  bucket: 'photos-bucket',
  publicBaseUrl: 'https://photos.example',
  client: { region: 'eu-west-1', credentials: CREDENTIALS },
});

/** A PUT exactly as the API tells the client to send it. */
async function mintedPut(): Promise<PresignedPutRequest> {
  const upload = await store.presignPut(KEY, { contentType: 'image/gif', sizeBytes: BODY.length }, 900);
  return { url: upload.url, headers: upload.headers, body: BODY };
}

describe('s3RefusalOfPresignedPut', () => {
  it('accepts the PUT the service mints, with the headers it hands out and a body of that size', async () => {
    // Prepare
    const put = await mintedPut();
    // Act
    const refused = await s3RefusalOfPresignedPut(put, CREDENTIALS);
    // Assess
    expect(refused).toBeUndefined();
  });

  it('refuses another type or size than the signed ones, and a signed header left out', async () => {
    // Prepare
    const put = await mintedPut();
    const { 'Content-Type': _type, ...withoutType } = put.headers;
    // Act
    const otherType = await s3RefusalOfPresignedPut(
      { ...put, headers: { ...put.headers, 'Content-Type': 'text/html' } },
      CREDENTIALS,
    );
    const otherSize = await s3RefusalOfPresignedPut(
      { ...put, headers: { 'Content-Type': 'image/gif' }, body: Buffer.from('GIF89a!') },
      CREDENTIALS,
    );
    const noType = await s3RefusalOfPresignedPut({ ...put, headers: withoutType }, CREDENTIALS);
    // Assess
    expect(otherType?.code).toBe('SignatureDoesNotMatch');
    expect(otherSize?.code).toBe('SignatureDoesNotMatch');
    expect(noType?.code).toBe('SignatureDoesNotMatch');
  });

  it('refuses a tampered URL, another secret, an unsigned x-amz header and an expired URL', async () => {
    // Prepare
    const put = await mintedPut();
    const tampered = put.url.replace('0b6f5a1e', '0b6f5a1f');
    // Act
    const moved = await s3RefusalOfPresignedPut({ ...put, url: tampered }, CREDENTIALS);
    const otherSecret = await s3RefusalOfPresignedPut(put, { ...CREDENTIALS, secretAccessKey: 'other' });
    const unsigned = await s3RefusalOfPresignedPut(
      { ...put, headers: { ...put.headers, 'x-amz-meta-note': 'hi' } },
      CREDENTIALS,
    );
    const expired = await s3RefusalOfPresignedPut(put, CREDENTIALS, new Date(Date.now() + 901_000));
    // Assess
    expect(moved?.code).toBe('SignatureDoesNotMatch');
    expect(otherSecret?.code).toBe('SignatureDoesNotMatch');
    expect(unsigned).toMatchObject({ status: 403, code: 'AccessDenied' });
    expect(unsigned?.message).toMatch(/not signed: x-amz-meta-note/);
    expect(expired).toMatchObject({ status: 403, code: 'AccessDenied', message: 'Request has expired' });
  });

  it('refuses a checksum signed into the URL that is not the body’s (the SDK default: the CRC32 of no body)', async () => {
    // Prepare: a client with the SDK's default checksum setting signs the CRC32 of no body.
    const sdkDefault = new S3Client({ region: 'eu-west-1', credentials: CREDENTIALS });
    const url = await getSignedUrl(
      sdkDefault,
      new PutObjectCommand({ Bucket: 'photos-bucket', Key: KEY, ContentType: 'image/gif' }),
      { expiresIn: 900, signableHeaders: new Set(['content-type']) },
    );
    // Act
    const refused = await s3RefusalOfPresignedPut(
      { url, headers: { 'Content-Type': 'image/gif' }, body: BODY },
      CREDENTIALS,
    );
    const emptyBody = await s3RefusalOfPresignedPut(
      { url, headers: { 'Content-Type': 'image/gif' }, body: Buffer.alloc(0) },
      CREDENTIALS,
    );
    // Assess
    expect(new URL(url).searchParams.get('x-amz-checksum-crc32')).toBe('AAAAAA==');
    expect(refused).toMatchObject({ status: 400, code: 'BadDigest' });
    // The checker's CRC32 is right: the empty body the SDK hashed passes.
    expect(emptyBody).toBeUndefined();
  });
});

describe('uploadContractProblems', () => {
  it('finds none in a minted upload; names an unsigned header, a signed one not handed out, a fixed checksum', async () => {
    // Prepare
    const upload = await store.presignPut(KEY, { contentType: 'image/gif', sizeBytes: 6 }, 900);
    // Act
    const minted = uploadContractProblems(upload);
    const extraHeader = uploadContractProblems({
      ...upload,
      headers: { ...upload.headers, 'Cache-Control': 'no' },
    });
    const { 'Content-Length': _length, ...fewer } = upload.headers;
    const missingHeader = uploadContractProblems({ ...upload, headers: fewer });
    const withChecksum = uploadContractProblems({
      ...upload,
      url: `${upload.url}&x-amz-checksum-crc32=AAAAAA%3D%3D`,
    });
    // Assess
    expect(minted).toEqual([]);
    expect(extraHeader).toEqual(['header Cache-Control is handed out but not signed']);
    expect(missingHeader).toEqual(['signed header content-length is not among the headers handed out']);
    expect(withChecksum).toEqual([
      'the URL fixes x-amz-checksum-crc32, a checksum of a file not yet uploaded',
    ]);
  });
});

describe('strictS3Put', () => {
  it('answers a refused PUT with S3’s status and error code and never sends it; sends an accepted one', async () => {
    // Prepare
    const put = await mintedPut();
    const sent: string[] = [];
    const strict = strictS3Put(CREDENTIALS, async (url) => {
      sent.push(url);
      return new Response(null, { status: 200 });
    });
    // Act
    const refused = await strict(put.url, {
      method: 'PUT',
      headers: { 'Content-Type': 'text/html' },
      body: BODY,
    });
    const accepted = await strict(put.url, { method: 'PUT', headers: put.headers, body: BODY });
    // Assess
    expect(refused.status).toBe(403);
    expect(await refused.text()).toContain('<Code>SignatureDoesNotMatch</Code>');
    expect(accepted.status).toBe(200);
    expect(sent).toEqual([put.url]);
  });
});
