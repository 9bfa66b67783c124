import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { IBucket } from 'aws-cdk-lib/aws-s3';
import { NagSuppressions } from 'cdk-nag';
import { PHOTO_PREFIX_WILDCARD } from './photo-store-access.ts';
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
  const objects = bucket.arnForObjects(`${CATALOGUE_PREFIX}*`);
  service.role.addToPrincipalPolicy(
    new PolicyStatement({
      actions: access.write ? ['s3:GetObject', 's3:PutObject'] : ['s3:GetObject'],
      resources: [objects],
    }),
  );
  service.role.addToPrincipalPolicy(
    new PolicyStatement({ actions: ['s3:ListBucket'], resources: [bucket.bucketArn] }),
  );
  NagSuppressions.addResourceSuppressions(
    service.role,
    [
      {
        id: 'AwsSolutions-IAM5',
        reason:
          'Catalogue snapshots are one object per Tenant (catalogue/<tenant>.json.gz), so the grant ' +
          'names the key prefix: the narrowest IAM allows, since a Tenant is not an IAM identity.',
        appliesTo: [{ regex: PHOTO_PREFIX_WILDCARD }],
      },
    ],
    true,
  );
}
