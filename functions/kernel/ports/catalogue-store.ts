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

/** A stored snapshot and its version (S3's ETag), which a rewrite names to replace exactly it. */
export interface StoredCatalogue {
  body: Buffer;
  version: string;
}

/**
 * The stored catalogue snapshots (services/catalogue-snapshot.ts): opaque bytes per Tenant. The
 * port neither compresses nor parses: the format is the service's, versioned there.
 */
export interface CatalogueStorePort {
  /** The Tenant's snapshot with its version, or undefined when there is none. */
  read(tenantId: string): Promise<StoredCatalogue | undefined>;
  /**
   * Replaces the Tenant's snapshot. With `replacing`, only if the stored one is still that version
   * (`null`: only if there is none): false, and nothing written, when another writer changed it
   * since (a conditional write, decided by the store). Without it, unconditionally (tests, tools).
   */
  write(tenantId: string, body: Buffer, replacing?: string | null): Promise<boolean>;
}

export interface S3CatalogueStoreOptions {
  bucket: string;
  /** Client settings over the service's defaults (the local stack points it at its own S3). */
  client?: S3ClientConfig;
}

/**
 * Amazon S3 (or the local S3 of `npm start` and the tests): GetObject and PutObject under `catalogue/`.
 * A conditional write is S3's: `If-Match` with the ETag read, `If-None-Match: *` when there was no
 * object; S3 refuses it with 412 PreconditionFailed when the object changed (404 NoSuchKey for an
 * If-Match on an object since deleted, 409 ConditionalRequestConflict for a write racing another).
 */
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

  async read(tenantId: string): Promise<StoredCatalogue | undefined> {
    const [{ GetObjectCommand }, client] = await this.#s3();
    try {
      const answer = await client.send(
        new GetObjectCommand({ Bucket: this.#bucket, Key: catalogueKey(tenantId) }),
      );
      const body = Buffer.from((await answer.Body?.transformToByteArray()) ?? new Uint8Array());
      if (!answer.ETag) throw new Error(`S3 answered the catalogue snapshot of ${tenantId} without an ETag`);
      return { body, version: answer.ETag };
    } catch (error) {
      const e = error as { name?: string; $metadata?: { httpStatusCode?: number } };
      if (e.name === 'NoSuchKey' || e.name === 'NotFound' || e.$metadata?.httpStatusCode === 404) {
        return undefined;
      }
      throw error;
    }
  }

  async write(tenantId: string, body: Buffer, replacing?: string | null): Promise<boolean> {
    const [{ PutObjectCommand }, client] = await this.#s3();
    const condition =
      replacing === undefined ? {} : replacing === null ? { IfNoneMatch: '*' } : { IfMatch: replacing };
    try {
      await client.send(
        new PutObjectCommand({
          Bucket: this.#bucket,
          Key: catalogueKey(tenantId),
          Body: body,
          ContentType: 'application/gzip',
          ...condition,
        }),
      );
      return true;
    } catch (error) {
      if (replacing !== undefined && isLostCondition(error)) return false;
      throw error;
    }
  }
}

/** S3's answers to a conditional PutObject whose condition no longer holds. */
function isLostCondition(error: unknown): boolean {
  const e = error as { name?: string; $metadata?: { httpStatusCode?: number } };
  const status = e.$metadata?.httpStatusCode;
  return (
    e.name === 'PreconditionFailed' ||
    e.name === 'ConditionalRequestConflict' ||
    e.name === 'NoSuchKey' ||
    status === 412 ||
    status === 409 ||
    status === 404
  );
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
