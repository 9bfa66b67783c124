import { Duration, RemovalPolicy, Stack, type StackProps } from 'aws-cdk-lib';
import {
  AttributeType,
  BillingMode,
  ProjectionType,
  StreamViewType,
  Table,
  TableEncryption,
} from 'aws-cdk-lib/aws-dynamodb';
import {
  BlockPublicAccess,
  Bucket,
  BucketEncryption,
  HttpMethods,
  ObjectOwnership,
} from 'aws-cdk-lib/aws-s3';
import { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import { NagSuppressions } from 'cdk-nag';
import type { Construct } from 'constructs';
import { tableDefinition } from '../../functions/data/table.ts';
import { CATALOGUE_PREFIX } from '../constructs/catalogue-store-access.ts';
import { grantGalleryReadToAccountDistributions } from '../constructs/photo-distribution.ts';

/**
 * Everything stateful: the one table, the photo bucket, and the key that signs pagination cursors
 * (a new key invalidates every cursor integrators hold). The table and bucket are retained when the
 * stack is deleted, and the stack holds nothing else so that the stateless stacks can be torn down
 * and rebuilt freely. In particular no CloudFront resource: a new account refused CloudFront must
 * not roll this stack back (the photo distribution is in PhotoCdnStack).
 */
export class DataStack extends Stack {
  readonly table: Table;
  /**
   * HMAC key of the pagination cursors. Every function gets its ARN (`CURSOR_SECRET_ARN`) and reads
   * the value at run time, once per container; the value is never in a template or an environment.
   */
  readonly cursorSecret: Secret;
  readonly photoBucket: Bucket;
  /** What CloudFront sends in `X-Origin-Verify`; site routes refuse a request without it. */
  readonly siteOriginSecret: Secret;
  /** The Cloudflare Turnstile secret key of the site's inquiry form: the operator puts its value. */
  readonly turnstileSecret: Secret;
  readonly accessLogsBucket: Bucket;

  constructor(scope: Construct, id: string, props?: StackProps) {
    super(scope, id, props);

    const stringKey = (name: string) => ({ name, type: AttributeType.STRING });
    // Built from the same description as the local stack's table (functions/data/table.ts).
    this.table = new Table(this, 'Table', {
      partitionKey: stringKey(tableDefinition.partitionKey),
      sortKey: stringKey(tableDefinition.sortKey),
      billingMode: BillingMode.PAY_PER_REQUEST,
      stream: StreamViewType.NEW_AND_OLD_IMAGES,
      timeToLiveAttribute: tableDefinition.timeToLiveAttribute,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      encryption: TableEncryption.AWS_MANAGED,
      deletionProtection: true,
      removalPolicy: RemovalPolicy.RETAIN,
    });
    for (const index of tableDefinition.globalSecondaryIndexes) {
      this.table.addGlobalSecondaryIndex({
        indexName: index.indexName,
        partitionKey: stringKey(index.partitionKey),
        sortKey: stringKey(index.sortKey),
        projectionType: ProjectionType.ALL,
      });
    }

    this.cursorSecret = new Secret(this, 'CursorSecret', {
      description: 'HMAC key that signs pagination cursors (read by every function at cold start)',
      generateSecretString: { passwordLength: 64, excludePunctuation: true, includeSpace: false },
    });
    NagSuppressions.addResourceSuppressions(this.cursorSecret, [
      {
        id: 'AwsSolutions-SMG4',
        reason:
          'The cursor-signing key is not a credential to any system: it only makes cursors ' +
          'tamper-evident. Rotating it would invalidate every cursor integrators hold while warm ' +
          'containers keep the old key (read once per container). If it is ever exposed, an operator ' +
          'puts a new value; new containers read it as they start.',
      },
    ]);

    this.siteOriginSecret = new Secret(this, 'SiteOriginSecret', {
      description: 'Sent by CloudFront to the API in X-Origin-Verify; site routes refuse requests without it',
      generateSecretString: { passwordLength: 48, excludePunctuation: true, includeSpace: false },
    });
    this.turnstileSecret = new Secret(this, 'TurnstileSecret', {
      description:
        "Cloudflare Turnstile secret key of the site's inquiry form. Put the key from the Cloudflare dashboard here; until then every inquiry is refused (403)",
      generateSecretString: { passwordLength: 32, excludePunctuation: true, includeSpace: false },
    });
    NagSuppressions.addResourceSuppressions(this.siteOriginSecret, [
      {
        id: 'AwsSolutions-SMG4',
        reason:
          'A shared value between CloudFront (read at deploy time) and the site functions (which accept ' +
          'the current and the previous value): CloudFront changes only when the Site stack is deployed ' +
          'with the new version, which no rotation function does. An operator rotates it (docs/operations.md).',
      },
    ]);
    NagSuppressions.addResourceSuppressions(this.turnstileSecret, [
      {
        id: 'AwsSolutions-SMG4',
        reason:
          "Cloudflare's Turnstile secret key is issued and rotated in the Cloudflare dashboard; AWS " +
          'cannot rotate it. The operator puts the new key here when Cloudflare issues one.',
      },
    ]);

    this.accessLogsBucket = new Bucket(this, 'AccessLogsBucket', {
      // S3 server access logging can only deliver to SSE-S3 buckets.
      encryption: BucketEncryption.S3_MANAGED,
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      objectOwnership: ObjectOwnership.BUCKET_OWNER_ENFORCED,
      enforceSSL: true,
      minimumTLSVersion: 1.2,
      removalPolicy: RemovalPolicy.RETAIN,
      lifecycleRules: [{ expiration: Duration.days(365) }],
    });
    NagSuppressions.addResourceSuppressions(this.accessLogsBucket, [
      {
        id: 'AwsSolutions-S1',
        reason:
          'This is the server access log bucket itself; logging its own access would write a log ' +
          'object for every log object delivered.',
      },
    ]);

    this.photoBucket = new Bucket(this, 'PhotoBucket', {
      encryption: BucketEncryption.S3_MANAGED,
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      objectOwnership: ObjectOwnership.BUCKET_OWNER_ENFORCED,
      enforceSSL: true,
      minimumTLSVersion: 1.2,
      versioned: true,
      serverAccessLogsBucket: this.accessLogsBucket,
      serverAccessLogsPrefix: 'photo-bucket/',
      removalPolicy: RemovalPolicy.RETAIN,
      lifecycleRules: [
        {
          noncurrentVersionExpiration: Duration.days(30),
          abortIncompleteMultipartUploadAfter: Duration.days(1),
        },
        // Uploads never confirmed (the confirm step keeps a photo's original under originals/).
        { id: 'ExpireUnconfirmedUploads', prefix: 'uploads/', expiration: Duration.days(1) },
        // The catalogue snapshots are rewritten whole, up to once a minute per Tenant: each rewrite
        // makes the previous one a noncurrent version, which the rule above would keep 30 days (a busy
        // Tenant's snapshot 1,440 times a day). A day is enough to undo a bad rewrite; a lost snapshot
        // is rebuilt from the table anyway. Where two rules overlap, S3 applies the shorter expiration.
        {
          id: 'ExpireOldCatalogueSnapshots',
          prefix: CATALOGUE_PREFIX,
          noncurrentVersionExpiration: Duration.days(1),
        },
      ],
      // Browsers PUT uploads straight to the bucket with a presigned URL, from the console and from
      // the Tenants' own sites, whose origins are not known here: the presigned signature (one key,
      // one type, one size, 15 minutes) is the authorization, not the origin.
      cors: [
        {
          allowedMethods: [HttpMethods.PUT],
          allowedOrigins: ['*'],
          allowedHeaders: ['Content-Type', 'Content-Length'],
          exposedHeaders: ['ETag'],
          maxAge: 3000,
        },
      ],
    });
    // The photo distribution (photo CDN stack) and the site distribution's /media/* (site stack) read
    // the gallery through OAC. No CloudFront resource lives here: see PhotoCdnStack.
    grantGalleryReadToAccountDistributions(this.photoBucket);
  }
}
