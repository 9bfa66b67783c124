import { Aws, Duration } from 'aws-cdk-lib';
import {
  AllowedMethods,
  CachePolicy,
  Distribution,
  HttpVersion,
  PriceClass,
  ResponseHeadersPolicy,
  S3OriginAccessControl,
  ViewerProtocolPolicy,
} from 'aws-cdk-lib/aws-cloudfront';
import { S3BucketOrigin } from 'aws-cdk-lib/aws-cloudfront-origins';
import { Effect, PolicyStatement, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import type { IBucket } from 'aws-cdk-lib/aws-s3';
import { NagSuppressions } from 'cdk-nag';
import { Construct } from 'constructs';

/**
 * Where the served files of the gallery live in the bucket (functions/domain/images.ts
 * `images/<tenant>/…`: the renditions). The originals are kept under `originals/`, never served.
 */
export const GALLERY_KEY_PREFIX = 'images/';

/**
 * Lets the account's CloudFront distributions read the gallery photos (`images/*`) through Origin
 * Access Control, and nothing else of the bucket: the photo distribution (PhotoDistribution) and the
 * site distribution's `/media/*` (lib/constructs/site-distribution.ts). The site distribution lives
 * in a later stack, so this grant names no distribution id: `AWS:SourceArn` is matched against the
 * account's distributions (`arn:…:cloudfront::<account>:distribution/*`) and `AWS:SourceAccount` must
 * be this account. A statement naming the site distribution would make this (data) stack depend on
 * the site stack, which already depends on it through the API: a cycle. Nothing leaks by the wider
 * match: gallery photos are public. Unconfirmed uploads (`uploads/`) and the originals (`originals/`,
 * camera metadata and GPS included) are readable by no distribution.
 */
export function grantGalleryReadToAccountDistributions(bucket: IBucket): void {
  bucket.addToResourcePolicy(
    new PolicyStatement({
      sid: 'GalleryReadByAccountDistributions',
      effect: Effect.ALLOW,
      principals: [new ServicePrincipal('cloudfront.amazonaws.com')],
      actions: ['s3:GetObject'],
      resources: [bucket.arnForObjects(`${GALLERY_KEY_PREFIX}*`)],
      conditions: {
        StringEquals: { 'AWS:SourceAccount': Aws.ACCOUNT_ID },
        ArnLike: { 'AWS:SourceArn': `arn:${Aws.PARTITION}:cloudfront::${Aws.ACCOUNT_ID}:distribution/*` },
      },
    }),
  );
}

export interface PhotoDistributionProps {
  /** The private photo bucket. */
  readonly bucket: IBucket;
}

/**
 * Serves the gallery photos (docs/photos.md): a CloudFront distribution in front of the private
 * photo bucket, reaching it through Origin Access Control (the bucket stays closed to the public).
 * The bucket policy (data stack) lets the account's distributions read `images/*` only
 * (grantGalleryReadToAccountDistributions), so an unconfirmed upload (`uploads/`) or an original
 * (`originals/`) is never served. Renditions are immutable (their keys hold a hash of their bytes) and
 * stored with `Cache-Control: public, max-age=31536000, immutable`, which the cache policy honours (its
 * MaxTTL is a year); a deleted photo's paths are invalidated by the photo import worker.
 * `baseUrl` is what the functions put in image URLs.
 */
export class PhotoDistribution extends Construct {
  readonly distribution: Distribution;
  /** `https://<id>.cloudfront.net`: image URLs are this plus the object key. */
  readonly baseUrl: string;

  constructor(scope: Construct, id: string, props: PhotoDistributionProps) {
    super(scope, id);
    const cachePolicy = new CachePolicy(this, 'ImmutablePhotos', {
      comment: 'Gallery photos: content-addressed renditions, cached as their Cache-Control says (a year)',
      defaultTtl: Duration.days(30),
      maxTtl: Duration.days(365),
      minTtl: Duration.seconds(0),
      enableAcceptEncodingGzip: false,
      enableAcceptEncodingBrotli: false,
    });
    // Not S3BucketOrigin.withOriginAccessControl: it also grants this distribution s3:GetObject on
    // every key of the bucket (`uploads/` included), and offers no way to narrow it.
    const originAccessControl = new S3OriginAccessControl(this, 'OriginAccessControl', {
      description: 'The photo CDN signs its reads of the gallery (images/*)',
    });
    this.distribution = new Distribution(this, 'Distribution', {
      comment: 'Listings and Leads: listing photos',
      httpVersion: HttpVersion.HTTP2_AND_3,
      priceClass: PriceClass.PRICE_CLASS_100,
      defaultBehavior: {
        origin: S3BucketOrigin.withBucketDefaults(props.bucket, {
          originAccessControlId: originAccessControl.originAccessControlId,
        }),
        viewerProtocolPolicy: ViewerProtocolPolicy.REDIRECT_TO_HTTPS,
        allowedMethods: AllowedMethods.ALLOW_GET_HEAD,
        cachePolicy,
        responseHeadersPolicy:
          ResponseHeadersPolicy.CORS_ALLOW_ALL_ORIGINS_WITH_PREFLIGHT_AND_SECURITY_HEADERS,
      },
    });
    this.baseUrl = `https://${this.distribution.distributionDomainName}`;
    NagSuppressions.addResourceSuppressions(this.distribution, [
      {
        id: 'AwsSolutions-CFR1',
        reason:
          "Listing photos are public by nature (they illustrate the Tenants' public websites worldwide); no geography is excluded.",
      },
      {
        id: 'AwsSolutions-CFR2',
        reason:
          'Static, immutable photos behind an unguessable key and a long cache: no request reaches code, and ' +
          'the origin only serves GETs of existing objects. A WAF web ACL adds a monthly cost with nothing to inspect.',
      },
      {
        id: 'AwsSolutions-CFR3',
        reason:
          'The photos are public images with random keys; who fetched which photo is of no operational use, ' +
          "and CloudFront's standard logs need an ACL-enabled bucket that this account's buckets do not allow. " +
          "The bucket's own server access logs record every origin read.",
      },
      {
        id: 'AwsSolutions-CFR4',
        reason:
          "The distribution uses CloudFront's default *.cloudfront.net certificate, for which CloudFront fixes " +
          'the viewer TLS policy; a custom domain with its own certificate (TLSv1.2_2021) is a deploy-time choice.',
      },
    ]);
  }
}
