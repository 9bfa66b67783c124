import type { S3ClientConfig } from '@aws-sdk/client-s3';
import { config } from '../config.ts';
import { definePort, required } from './port.ts';
import { clientDefaults, lazyClient } from './sdk-client.ts';

/** A presigned PUT: where and how the client sends the file itself, straight to storage. */
export interface PresignedUpload {
  url: string;
  method: 'PUT';
  /** Headers the PUT must carry exactly as given (they are signed). */
  headers: Record<string, string>;
  expiresAt: string;
}

/** What storage knows of an object. */
export interface StoredObject {
  sizeBytes: number;
  /**
   * This version of the object (S3's ETag): reads and copies given it act on exactly this version,
   * so a file replaced after it was looked at is never taken for the one that was checked.
   */
  version: string;
}

/**
 * The object is no longer the version asked for (replaced by another PUT, or removed): S3 answered
 * a conditional read or copy 412 Precondition Failed, or 404.
 */
export class PhotoChangedError extends Error {
  constructor(key: string) {
    super(`The object ${key} changed or was removed since it was looked at`);
    this.name = 'PhotoChangedError';
  }
}

/**
 * The photo bucket (S3 in AWS, the local S3 of `npm start` and the tests). Keys are chosen by the
 * services (domain/images.ts); the port never decides where a file goes.
 */
export interface PhotoStorePort {
  /**
   * A URL to PUT one file of exactly `contentType` and `sizeBytes` to `key`, valid `expiresInSeconds`.
   * Content-Type and Content-Length are signed: S3 refuses a PUT with another type or size.
   */
  presignPut(
    key: string,
    file: { contentType: string; sizeBytes: number },
    expiresInSeconds: number,
  ): Promise<PresignedUpload>;
  /** The object's size, or undefined when there is none. */
  head(key: string): Promise<StoredObject | undefined>;
  /**
   * The first `bytes` bytes (all of it when shorter) of `version` of the object; PhotoChangedError
   * when the object is no longer that version.
   */
  readStart(key: string, bytes: number, version: string): Promise<Buffer>;
  /** The whole object, or undefined when there is none (the worker reads an original). */
  read(key: string): Promise<Buffer | undefined>;
  /**
   * Writes an object: an original (private, no `cacheControl`) or a rendition, served with the
   * `cacheControl` given (S3 stores it and answers every GET with it; the CDN follows it).
   */
  put(key: string, body: Buffer, contentType: string, cacheControl?: string): Promise<void>;
  /**
   * Copies `version` of an object to `toKey`, stored with `contentType` (an upload confirmed: its
   * original kept); PhotoChangedError when the source is no longer that version.
   */
  copy(fromKey: string, toKey: string, contentType: string, version: string): Promise<void>;
  /** Deletes an object; deleting a missing one is no error. */
  delete(key: string): Promise<void>;
  /** Where a stored photo is served publicly. */
  publicUrl(key: string): string;
}

export interface S3PhotoStoreOptions {
  bucket: string;
  /** The public base of the photos: the CDN in AWS (`https://dxxxx.cloudfront.net`), keys appended. */
  publicBaseUrl: string;
  /** Client settings over the service's defaults (the local stack points it at its own S3). */
  client?: S3ClientConfig;
}

/** Amazon S3 (or an S3-compatible local stand-in): PutObject presigned, HeadObject, GetObject, PutObject, CopyObject, DeleteObject. */
export class S3PhotoStore implements PhotoStorePort {
  readonly #bucket: string;
  readonly #base: string;
  readonly #s3;
  readonly #presigner;

  constructor(options: S3PhotoStoreOptions) {
    this.#bucket = options.bucket;
    this.#base = options.publicBaseUrl.replace(/\/+$/, '');
    this.#s3 = lazyClient(
      () => import('@aws-sdk/client-s3'),
      ({ S3Client }) => new S3Client({ ...clientDefaults(), ...options.client }),
    );
    // Presigning only: since 3.729 the SDK computes checksums WHEN_SUPPORTED, which for a PutObject
    // without a body signs the CRC32 of nothing (`x-amz-checksum-crc32=AAAAAA==`) into the URL, and
    // S3 answers every real file BadDigest. WHEN_REQUIRED is the SDK's documented switch for that
    // (PutObject does not require one); the client that sends bodies keeps its checksums.
    this.#presigner = lazyClient(
      () => import('@aws-sdk/client-s3'),
      ({ S3Client }) =>
        new S3Client({ ...clientDefaults(), ...options.client, requestChecksumCalculation: 'WHEN_REQUIRED' }),
    );
  }

  async presignPut(
    key: string,
    file: { contentType: string; sizeBytes: number },
    expiresInSeconds: number,
  ): Promise<PresignedUpload> {
    const [[{ PutObjectCommand }, client], { getSignedUrl }] = await Promise.all([
      this.#presigner(),
      import('@aws-sdk/s3-request-presigner'),
    ]);
    const signedAt = new Date();
    const url = await getSignedUrl(
      client,
      new PutObjectCommand({
        Bucket: this.#bucket,
        Key: key,
        ContentType: file.contentType,
        ContentLength: file.sizeBytes,
      }),
      {
        expiresIn: expiresInSeconds,
        signingDate: signedAt,
        // Signed, so S3 itself refuses a PUT of another type or size than the one minted.
        signableHeaders: new Set(['content-type', 'content-length']),
      },
    );
    return {
      url,
      method: 'PUT',
      headers: { 'Content-Type': file.contentType, 'Content-Length': String(file.sizeBytes) },
      expiresAt: new Date(signedAt.getTime() + expiresInSeconds * 1000).toISOString(),
    };
  }

  async head(key: string): Promise<StoredObject | undefined> {
    const [{ HeadObjectCommand }, client] = await this.#s3();
    try {
      const answer = await client.send(new HeadObjectCommand({ Bucket: this.#bucket, Key: key }));
      return { sizeBytes: answer.ContentLength ?? 0, version: answer.ETag ?? '' };
    } catch (error) {
      const e = error as { name?: string; $metadata?: { httpStatusCode?: number } };
      if (e.name === 'NotFound' || e.name === 'NoSuchKey' || e.$metadata?.httpStatusCode === 404) {
        return undefined;
      }
      throw error;
    }
  }

  async readStart(key: string, bytes: number, version: string): Promise<Buffer> {
    const [{ GetObjectCommand }, client] = await this.#s3();
    const answer = await client
      .send(
        new GetObjectCommand({
          Bucket: this.#bucket,
          Key: key,
          Range: `bytes=0-${bytes - 1}`,
          IfMatch: version,
        }),
      )
      .catch(changedAs(key));
    const body = await answer.Body?.transformToByteArray();
    return Buffer.from(body ?? new Uint8Array());
  }

  async read(key: string): Promise<Buffer | undefined> {
    const [{ GetObjectCommand }, client] = await this.#s3();
    try {
      const answer = await client.send(new GetObjectCommand({ Bucket: this.#bucket, Key: key }));
      return Buffer.from((await answer.Body?.transformToByteArray()) ?? new Uint8Array());
    } catch (error) {
      const e = error as { name?: string; $metadata?: { httpStatusCode?: number } };
      if (e.name === 'NoSuchKey' || e.$metadata?.httpStatusCode === 404) return undefined;
      throw error;
    }
  }

  async put(key: string, body: Buffer, contentType: string, cacheControl?: string): Promise<void> {
    const [{ PutObjectCommand }, client] = await this.#s3();
    await client.send(
      new PutObjectCommand({
        Bucket: this.#bucket,
        Key: key,
        Body: body,
        ContentType: contentType,
        ...(cacheControl ? { CacheControl: cacheControl } : {}),
      }),
    );
  }

  async copy(fromKey: string, toKey: string, contentType: string, version: string): Promise<void> {
    const [{ CopyObjectCommand }, client] = await this.#s3();
    await client
      .send(
        new CopyObjectCommand({
          Bucket: this.#bucket,
          Key: toKey,
          CopySource: `${this.#bucket}/${fromKey.split('/').map(encodeURIComponent).join('/')}`,
          // S3 refuses (412) to copy another version than the one that was inspected.
          CopySourceIfMatch: version,
          ContentType: contentType,
          MetadataDirective: 'REPLACE',
        }),
      )
      .catch(changedAs(fromKey));
  }

  async delete(key: string): Promise<void> {
    const [{ DeleteObjectCommand }, client] = await this.#s3();
    await client.send(new DeleteObjectCommand({ Bucket: this.#bucket, Key: key }));
  }

  publicUrl(key: string): string {
    return `${this.#base}/${key.split('/').map(encodeURIComponent).join('/')}`;
  }
}

/** S3's answers to a conditional request on a replaced (412) or removed (404) object, as PhotoChangedError. */
function changedAs(key: string) {
  return (error: unknown): never => {
    const e = error as { name?: string; $metadata?: { httpStatusCode?: number } };
    const status = e.$metadata?.httpStatusCode;
    if (e.name === 'PreconditionFailed' || e.name === 'NoSuchKey' || status === 412 || status === 404) {
      throw new PhotoChangedError(key);
    }
    throw error;
  };
}

const port = definePort<PhotoStorePort>('photo store');

/** The bound photo bucket: S3 in Lambda, the local S3 of `npm start` and the tests. */
export function photoStore(): PhotoStorePort {
  return port.get();
}

/**
 * Binds S3 (the Lambda entry of a row that `uses` a photo grant); PHOTO_BUCKET and PHOTO_BASE_URL
 * are required on first use.
 */
export function bindAwsAdapter(): void {
  port.bindAws(
    () =>
      new S3PhotoStore({
        bucket: required(config().PHOTO_BUCKET, 'PHOTO_BUCKET', 'photo store'),
        publicBaseUrl: required(config().PHOTO_BASE_URL, 'PHOTO_BASE_URL', 'photo store'),
      }),
  );
}

/** Binds a photo store: the local stack's S3, or a test's. */
export function setPhotoStore(next: PhotoStorePort | undefined): void {
  port.bind(next);
}
