import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { IBucket } from 'aws-cdk-lib/aws-s3';
import { NagSuppressions } from 'cdk-nag';
import type { ServiceFunction } from './service-function.ts';

/**
 * cdk-nag's finding for a grant on one key prefix of the photo bucket, however the bucket's ARN is
 * rendered (a cross-stack reference here): `Resource::<…PhotoBucket…Arn…>/uploads/*`, `…/images/*`,
 * `…/originals/*` or `…/catalogue/*` (the catalogue snapshots, lib/constructs/catalogue-store-access.ts).
 */
export const PHOTO_PREFIX_WILDCARD =
  '/^Resource::.*PhotoBucket[0-9A-F]*.*Arn.*\\/(uploads|images|originals|catalogue)\\/\\*$/g';

/** What a function may do in the photo bucket, by key prefix pattern (`uploads/*`, `images/*`, `originals/*`). */
export interface PhotoStoreAccess {
  /** `s3:PutObject` (a write, the target of a copy, or the signer of a presigned PUT). */
  readonly put?: readonly string[];
  /** `s3:GetObject` (reads, HeadObject, the source of a copy). */
  readonly get?: readonly string[];
  readonly delete?: readonly string[];
  /**
   * `s3:ListBucket` on the bucket: without it S3 answers a HeadObject of a missing key with 403
   * instead of 404, and a confirm could not tell "not uploaded" from a fault.
   */
  readonly list?: boolean;
}

/**
 * Binds the photo bucket to a function: `PHOTO_BUCKET` and `PHOTO_BASE_URL`, and exactly the
 * object actions `access` names, each on its key prefixes only (not `grantReadWrite`, which adds
 * every object of the bucket and actions the service never calls).
 */
export function bindPhotoStore(
  service: ServiceFunction,
  bucket: IBucket,
  baseUrl: string,
  access: PhotoStoreAccess,
): void {
  service.fn.addEnvironment('PHOTO_BUCKET', bucket.bucketName);
  service.fn.addEnvironment('PHOTO_BASE_URL', baseUrl);
  grantBucketPrefixes(
    service,
    bucket,
    access,
    'Photo keys are generated per Tenant, listing and photo (uploads/<tenant>/<listing>/…, ' +
      'images/<tenant>/<listing>/…, originals/<tenant>/<listing>/…), so object grants name a key prefix: the narrowest IAM allows, ' +
      'since a Tenant is not an IAM identity.',
  );
}

/**
 * Grants a function's role exactly the object actions `access` names on the bucket's key prefixes,
 * and records why cdk-nag's wildcard finding is accepted (`reason`): the photo store and the
 * catalogue snapshots (lib/constructs/catalogue-store-access.ts) share the bucket and this shape.
 */
export function grantBucketPrefixes(
  service: ServiceFunction,
  bucket: IBucket,
  access: PhotoStoreAccess,
  reason: string,
): void {
  const grants: [string, readonly string[] | undefined][] = [
    ['s3:PutObject', access.put],
    ['s3:GetObject', access.get],
    ['s3:DeleteObject', access.delete],
  ];
  for (const [action, prefixes] of grants) {
    if (!prefixes?.length) continue;
    service.role.addToPrincipalPolicy(
      new PolicyStatement({ actions: [action], resources: prefixes.map((p) => bucket.arnForObjects(p)) }),
    );
  }
  if (access.list) {
    service.role.addToPrincipalPolicy(
      new PolicyStatement({ actions: ['s3:ListBucket'], resources: [bucket.bucketArn] }),
    );
  }
  NagSuppressions.addResourceSuppressions(
    service.role,
    [{ id: 'AwsSolutions-IAM5', reason, appliesTo: [{ regex: PHOTO_PREFIX_WILDCARD }] }],
    true,
  );
}
