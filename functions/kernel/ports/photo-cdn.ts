import { createHash } from 'node:crypto';
import type { CloudFrontClientConfig } from '@aws-sdk/client-cloudfront';
import { config } from '../config.ts';
import { definePort, required } from './port.ts';
import { clientDefaults, lazyClient } from './sdk-client.ts';

/**
 * The CDN in front of the photos. Renditions are cached for a year and never revalidated
 * (domain/images.ts RENDITION_CACHE_CONTROL), so a deleted photo leaves the CDN only when its paths
 * are invalidated: the photo import worker does it, after the files are deleted from the bucket.
 */
export interface PhotoCdnPort {
  /**
   * Drops `paths` (`/images/<tenant>/<listing>/<photo>-*`, a wildcard at the end allowed) from every
   * edge cache. Calling it again with the same paths is harmless (the same invalidation).
   */
  invalidate(paths: readonly string[]): Promise<void>;
}

/** The CDN refused the invalidation for now (too many in progress): the caller tries again later. */
export class CdnBusyError extends Error {
  override readonly name = 'CdnBusyError';
}

/**
 * Amazon CloudFront: CreateInvalidation on the photo distribution. The caller reference is derived
 * from the paths, so a message delivered twice names one invalidation (CloudFront answers a repeated
 * reference with the invalidation it already made).
 */
export class CloudFrontPhotoCdn implements PhotoCdnPort {
  readonly #distributionId: string;
  readonly #cloudfront;

  constructor(options: { distributionId: string; client?: CloudFrontClientConfig }) {
    this.#distributionId = options.distributionId;
    this.#cloudfront = lazyClient(
      () => import('@aws-sdk/client-cloudfront'),
      ({ CloudFrontClient }) => new CloudFrontClient({ ...clientDefaults(), ...options.client }),
    );
  }

  async invalidate(paths: readonly string[]): Promise<void> {
    if (paths.length === 0) return;
    const [{ CreateInvalidationCommand }, client] = await this.#cloudfront();
    const items = [...new Set(paths)].sort();
    const reference = createHash('sha256').update(items.join('\n')).digest('hex').slice(0, 32);
    try {
      await client.send(
        new CreateInvalidationCommand({
          DistributionId: this.#distributionId,
          InvalidationBatch: { CallerReference: reference, Paths: { Quantity: items.length, Items: items } },
        }),
      );
    } catch (error) {
      // At most 15 wildcard paths may be in progress on a distribution at once.
      if ((error as { name?: string }).name === 'TooManyInvalidationsInProgress') {
        throw new CdnBusyError(`CloudFront has too many invalidations in progress: ${items.join(' ')}`);
      }
      throw error;
    }
  }
}

/** No CDN: the local stack serves photos from the local S3, which answers 404 once a file is deleted. */
export class NoPhotoCdn implements PhotoCdnPort {
  /** The paths each call named, in order (tests read them). */
  readonly invalidated: string[][] = [];
  async invalidate(paths: readonly string[]): Promise<void> {
    this.invalidated.push([...paths]);
  }
}

const port = definePort<PhotoCdnPort>('photo CDN');

/** The bound CDN: CloudFront in Lambda, none locally. */
export function photoCdn(): PhotoCdnPort {
  return port.get();
}

/** Binds CloudFront (the Lambda entry of a row that `uses` 'photoCdn'); PHOTO_DISTRIBUTION_ID is required on first use. */
export function bindAwsAdapter(): void {
  port.bindAws(
    () =>
      new CloudFrontPhotoCdn({
        distributionId: required(config().PHOTO_DISTRIBUTION_ID, 'PHOTO_DISTRIBUTION_ID', 'photo CDN'),
      }),
  );
}

/** Binds a CDN adapter: none for the local stack, a test's recorder. */
export function setPhotoCdn(next: PhotoCdnPort | undefined): void {
  port.bind(next);
}
