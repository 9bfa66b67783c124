import type { S3ClientConfig } from '@aws-sdk/client-s3';
import { config } from '../config.ts';
import { definePort, required } from './port.ts';
import { clientDefaults, lazyClient } from './sdk-client.ts';

/**
 * Where a Tenant's catalogue snapshot lives: a private prefix of the photo bucket that no
 * distribution serves (the gallery's is `images/`), one object per Tenant, rewritten whole.
 */
export function catalogueKey(tenantId: string): string {
  return `catalogue/${tenantId}.json.gz`;
}

/**
 * The stored catalogue snapshots (services/catalogue-snapshot.ts): opaque bytes per Tenant. The
 * port neither compresses nor parses: the format is the service's, versioned there.
 */
export interface CatalogueStorePort {
  /** The Tenant's snapshot, or undefined when there is none. */
  read(tenantId: string): Promise<Buffer | undefined>;
  /** Replaces the Tenant's snapshot. */
  write(tenantId: string, body: Buffer): Promise<void>;
}

export interface S3CatalogueStoreOptions {
  bucket: string;
  /** Client settings over the service's defaults (the local stack points it at its own S3). */
  client?: S3ClientConfig;
}

/** Amazon S3 (or the local S3 of `npm start` and the tests): GetObject and PutObject under `catalogue/`. */
export class S3CatalogueStore implements CatalogueStorePort {
  readonly #bucket: string;
  readonly #s3;

  constructor(options: S3CatalogueStoreOptions) {
    this.#bucket = options.bucket;
    this.#s3 = lazyClient(
      () => import('@aws-sdk/client-s3'),
      ({ S3Client }) => new S3Client({ ...clientDefaults(), ...options.client }),
    );
  }

  async read(tenantId: string): Promise<Buffer | undefined> {
    const [{ GetObjectCommand }, client] = await this.#s3();
    try {
      const answer = await client.send(
        new GetObjectCommand({ Bucket: this.#bucket, Key: catalogueKey(tenantId) }),
      );
      return Buffer.from((await answer.Body?.transformToByteArray()) ?? new Uint8Array());
    } catch (error) {
      const e = error as { name?: string; $metadata?: { httpStatusCode?: number } };
      if (e.name === 'NoSuchKey' || e.name === 'NotFound' || e.$metadata?.httpStatusCode === 404) {
        return undefined;
      }
      throw error;
    }
  }

  async write(tenantId: string, body: Buffer): Promise<void> {
    const [{ PutObjectCommand }, client] = await this.#s3();
    await client.send(
      new PutObjectCommand({
        Bucket: this.#bucket,
        Key: catalogueKey(tenantId),
        Body: body,
        ContentType: 'application/gzip',
      }),
    );
  }
}

const port = definePort<CatalogueStorePort>('catalogue store');

/** The bound catalogue store: S3 in Lambda, the local S3 of `npm start` and the tests. */
export function catalogueStore(): CatalogueStorePort {
  return port.get();
}

/** Binds S3 (the Lambda entry of a row that `uses` catalogueRead or catalogueWrite); CATALOGUE_BUCKET is required on first use. */
export function bindAwsAdapter(): void {
  port.bindAws(
    () =>
      new S3CatalogueStore({
        bucket: required(config().CATALOGUE_BUCKET, 'CATALOGUE_BUCKET', 'catalogue store'),
      }),
  );
}

/** Binds a catalogue store: the local stack's S3, or a test's; `undefined` unbinds it. */
export function setCatalogueStore(next: CatalogueStorePort | undefined): void {
  port.bind(next);
}
