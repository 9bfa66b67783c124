import type { IBucket } from 'aws-cdk-lib/aws-s3';
import { grantBucketPrefixes } from './photo-store-access.ts';
import type { ServiceFunction } from './service-function.ts';

/** The key prefix of the catalogue snapshots (functions/kernel/ports/catalogue-store.ts `catalogueKey`). */
export const CATALOGUE_PREFIX = 'catalogue/';

/**
 * Binds the catalogue snapshots to a function: `CATALOGUE_BUCKET`, `s3:GetObject` under
 * `catalogue/` and `s3:ListBucket` (without it S3 answers a missing snapshot 403, not 404), and with
 * `write` `s3:PutObject` there too. They live in the photo bucket under a prefix no distribution
 * serves (the distributions read `images/` only).
 */
export function bindCatalogueStore(
  service: ServiceFunction,
  bucket: IBucket,
  access: { write: boolean },
): void {
  service.fn.addEnvironment('CATALOGUE_BUCKET', bucket.bucketName);
  const snapshots = [`${CATALOGUE_PREFIX}*`];
  grantBucketPrefixes(
    service,
    bucket,
    { get: snapshots, ...(access.write ? { put: snapshots } : {}), list: true },
    'Catalogue snapshots are one object per Tenant (catalogue/<tenant>.json.gz), so the grant ' +
      'names the key prefix: the narrowest IAM allows, since a Tenant is not an IAM identity.',
  );
}
