import { Annotations, Duration, Fn, SecretValue } from 'aws-cdk-lib';
import {
  AccessLevel,
  AllowedMethods,
  CachedMethods,
  CacheHeaderBehavior,
  CachePolicy,
  CacheQueryStringBehavior,
  Distribution,
  Function as EdgeFunction,
  FunctionCode,
  FunctionEventType,
  FunctionRuntime,
  HttpVersion,
  OriginProtocolPolicy,
  OriginRequestHeaderBehavior,
  OriginRequestPolicy,
  OriginRequestQueryStringBehavior,
  OriginSslPolicy,
  PriceClass,
  ResponseHeadersPolicy,
  ViewerProtocolPolicy,
} from 'aws-cdk-lib/aws-cloudfront';
import { HttpOrigin, S3BucketOrigin } from 'aws-cdk-lib/aws-cloudfront-origins';
import { Bucket } from 'aws-cdk-lib/aws-s3';
import type { ISecret } from 'aws-cdk-lib/aws-secretsmanager';
import { NagSuppressions } from 'cdk-nag';
import { Construct } from 'constructs';
import { SITE_REQUEST_HEADERS } from '../../functions/pipeline/middleware/site-headers.ts';
import { regionalPolicyName } from './cloudfront-policy-name.ts';
import { GALLERY_KEY_PREFIX } from './photo-distribution.ts';

/** The header the distribution adds to every request it sends to the API (functions/pipeline/middleware/site-access.ts). */
export const ORIGIN_VERIFY_HEADER = 'X-Origin-Verify';

/** Gallery photos on the site's own host: `/media/<tenant>/<listing>/<photo>` is `images/<tenant>/<listing>/<photo>`. */
export const MEDIA_PATH_PATTERN = '/media/*';
const MEDIA_PREFIX = '/media/';

/**
 * The viewer-request rewrite of `/media/*` (CloudFront Functions, JS 2.0): the gallery key under
 * `images/`, so nothing else of the bucket (unconfirmed uploads) is reachable through the site host;
 * a bare `/media/` is 404.
 */
export const MEDIA_REWRITE_CODE = `function handler(event) {
  var request = event.request;
  var rest = request.uri.slice(${MEDIA_PREFIX.length});
  if (rest === '') return { statusCode: 404, statusDescription: 'Not Found' };
  request.uri = '/${GALLERY_KEY_PREFIX}' + rest;
  return request;
}`;

/**
 * The paths CloudFront sends to the site API, with the origin secret: every site route of the route
 * table, with and without a trailing slash (a page may link either; test/infra/site.test.ts checks
 * each row). Anything else is answered 404 at the edge.
 */
export const SITE_PATH_PATTERNS = ['/v1/site/*', '/v1/theme', '/v1/theme/'] as const;

/** The site cache key's headers: answers differ by the page's origin (CORS). */
const SITE_CACHE_KEY_HEADERS = [SITE_REQUEST_HEADERS.origin];

/**
 * The viewer-request function of the default behaviour (CloudFront Functions, JS 2.0): what no path
 * pattern claims is answered here, so nothing but the site paths and the photos reaches an origin.
 */
export const NOT_FOUND_CODE = `function handler(event) {
  return { statusCode: 404, statusDescription: 'Not Found' };
}`;

export interface SiteDistributionProps {
  /** The HTTP API's endpoint, `https://<id>.execute-api.<region>.amazonaws.com`. */
  readonly apiEndpoint: string;
  /** The value CloudFront sends in {@link ORIGIN_VERIFY_HEADER}; the site routes compare it. */
  readonly originSecret: ISecret;
  /**
   * The version of {@link originSecret} to send (deploy parameter `originSecretVersion`): a new id
   * changes the distribution, so the deploy that follows a rotation resolves the new value.
   * @default - the current version (AWSCURRENT), resolved when the distribution last changed
   */
  readonly originSecretVersionId?: string;
  /**
   * The photo bucket's name (data stack): when given, `/media/*` serves the gallery photos from it
   * through Origin Access Control. The bucket's policy grants the read (photo-distribution.ts
   * `grantGalleryReadToAccountDistributions`), so nothing here writes to the data stack.
   */
  readonly photoBucketName?: string;
  /**
   * The ARN of a CloudFront-scope AWS WAF web ACL (us-east-1) to put in front of the distribution.
   * @default - none: the API's budgets alone bound abuse
   */
  readonly webAclId?: string;
  /**
   * Edge locations to serve from.
   * @default PriceClass.PRICE_CLASS_100 (North America and Europe: the agencies' markets)
   */
  readonly priceClass?: PriceClass;
}

/**
 * CloudFront in front of the site API (what is cached and for how long: docs/site-api.md):
 * - the site paths (`/v1/site/*`, `/v1/theme`, {@link SITE_PATH_PATTERNS}) go to the HTTP API, cached per full query string (key, origin,
 *   locale and every filter) and `Origin` header, for as long as the API's `Cache-Control` says
 *   (successful GETs `s-maxage=60, stale-while-revalidate=300`, errors `no-store`); the viewer's
 *   address travels in `CloudFront-Viewer-Address` (what the visitor budgets count), the page in
 *   `Referer`, a retried write's `Idempotency-Key` (every header the site routes read:
 *   SITE_REQUEST_HEADERS), and every request carries the origin secret, so the site routes refuse
 *   anything that did not come through here;
 * - `/media/*` serves the gallery photos from the photo bucket through Origin Access Control, a day
 *   at the edge (browsers keep a rendition a year): `/media/<tenant>/<listing>/<photo>` is the object
 *   `images/<tenant>/<listing>/<photo>` (a CloudFront Function rewrites the path), the same object
 *   the photo distribution serves at `<PHOTO_BASE_URL>/images/…`, so a site can show its photos from
 *   its own API host. The bucket (data stack) is imported by name, so CDK cannot add the OAC grant
 *   to its policy from here (it warns, acknowledged below); the data stack grants its account's
 *   distributions read on `images/*` instead, which names no distribution and so makes no cycle;
 * - anything else is answered 404 by a CloudFront Function, and its origin (never contacted) is the
 *   API without the secret: no other path can borrow the secret the site routes trust (the secret
 *   API is called at its own endpoint, `ApiUrl`).
 */
export class SiteDistribution extends Construct {
  readonly distribution: Distribution;
  readonly siteCachePolicy: CachePolicy;
  readonly siteOriginRequestPolicy: OriginRequestPolicy;

  constructor(scope: Construct, id: string, props: SiteDistributionProps) {
    super(scope, id);
    const apiDomain = Fn.select(2, Fn.split('/', props.apiEndpoint));
    const versionId = props.originSecretVersionId;
    const originSecret = versionId
      ? SecretValue.secretsManager(props.originSecret.secretArn, { versionId })
      : props.originSecret.secretValue;
    const apiOrigin = new HttpOrigin(apiDomain, {
      protocolPolicy: OriginProtocolPolicy.HTTPS_ONLY,
      originSslProtocols: [OriginSslPolicy.TLS_V1_2],
      // A dynamic reference: CloudFormation resolves it at deploy time, the template holds none of it.
      customHeaders: { [ORIGIN_VERIFY_HEADER]: originSecret.unsafeUnwrap() },
    });
    // The same API without the secret, for the default behaviour (which answers 404 before reaching it).
    const unsecretedApiOrigin = new HttpOrigin(apiDomain, {
      protocolPolicy: OriginProtocolPolicy.HTTPS_ONLY,
      originSslProtocols: [OriginSslPolicy.TLS_V1_2],
    });

    this.siteCachePolicy = new CachePolicy(this, 'SiteCachePolicy', {
      comment: 'Site reads: per full URL and Origin, for as long as the API says (s-maxage)',
      queryStringBehavior: CacheQueryStringBehavior.all(),
      headerBehavior: CacheHeaderBehavior.allowList(...SITE_CACHE_KEY_HEADERS),
      minTtl: Duration.seconds(0),
      defaultTtl: Duration.seconds(0),
      maxTtl: Duration.days(1),
      enableAcceptEncodingGzip: true,
      enableAcceptEncodingBrotli: true,
    });
    // The cache key's headers reach the origin anyway; CloudFront forwards the others only when listed.
    const forwarded = Object.values(SITE_REQUEST_HEADERS).filter(
      (name) => !SITE_CACHE_KEY_HEADERS.some((cached) => cached.toLowerCase() === name.toLowerCase()),
    );
    this.siteOriginRequestPolicy = new OriginRequestPolicy(this, 'SiteOriginRequestPolicy', {
      originRequestPolicyName: regionalPolicyName(this, 'SiteOriginRequestPolicy'),
      comment: 'Site routes: every header they read (viewer address, page, Idempotency-Key, preflight)',
      queryStringBehavior: OriginRequestQueryStringBehavior.all(),
      headerBehavior: OriginRequestHeaderBehavior.allowList(...forwarded),
    });

    const siteBehavior = {
      origin: apiOrigin,
      viewerProtocolPolicy: ViewerProtocolPolicy.REDIRECT_TO_HTTPS,
      allowedMethods: AllowedMethods.ALLOW_ALL,
      cachedMethods: CachedMethods.CACHE_GET_HEAD,
      cachePolicy: this.siteCachePolicy,
      originRequestPolicy: this.siteOriginRequestPolicy,
      compress: true,
    };
    const mediaBehavior = props.photoBucketName ? this.mediaBehavior(props.photoBucketName) : undefined;
    this.distribution = new Distribution(this, 'Distribution', {
      comment: 'Listings and Leads: site reads cached at the edge, photos',
      httpVersion: HttpVersion.HTTP2_AND_3,
      priceClass: props.priceClass ?? PriceClass.PRICE_CLASS_100,
      ...(props.webAclId ? { webAclId: props.webAclId } : {}),
      defaultBehavior: {
        origin: unsecretedApiOrigin,
        viewerProtocolPolicy: ViewerProtocolPolicy.HTTPS_ONLY,
        // Every method, so that every one gets the function's 404.
        allowedMethods: AllowedMethods.ALLOW_ALL,
        cachePolicy: CachePolicy.CACHING_DISABLED,
        functionAssociations: [
          {
            function: new EdgeFunction(this, 'NotFound', {
              comment: 'Paths no behaviour claims: 404 at the edge, never forwarded',
              runtime: FunctionRuntime.JS_2_0,
              code: FunctionCode.fromInline(NOT_FOUND_CODE),
            }),
            eventType: FunctionEventType.VIEWER_REQUEST,
          },
        ],
      },
      additionalBehaviors: {
        ...Object.fromEntries(SITE_PATH_PATTERNS.map((pattern) => [pattern, siteBehavior])),
        ...(mediaBehavior ? { [MEDIA_PATH_PATTERN]: mediaBehavior } : {}),
      },
    });
    NagSuppressions.addResourceSuppressions(this.distribution, [
      {
        id: 'AwsSolutions-CFR1',
        reason:
          'Agencies sell to buyers from any country, and their websites must load for all of them: no geographic restriction is wanted.',
      },
      ...(props.webAclId
        ? []
        : [
            {
              id: 'AwsSolutions-CFR2',
              reason:
                'Deployed with waf=off on purpose: abuse is then bounded in the application alone ' +
                "(per-visitor, per-Tenant and per-key budgets counted on CloudFront's viewer address), " +
                'and cached answers cost the origin nothing.',
            },
          ]),
      {
        id: 'AwsSolutions-CFR3',
        reason:
          'Standard logging needs an ACL-enabled bucket; the log bucket enforces bucket-owner ' +
          'ownership (no ACLs). Requests reaching the API are logged by its access logs; cache hits are ' +
          'visible in CloudFront metrics.',
      },
      {
        id: 'AwsSolutions-CFR4',
        reason:
          'The distribution uses its default *.cloudfront.net certificate, for which CloudFront ' +
          'fixes the viewer TLS policy; a custom domain with TLSv1.2_2021 is set when one is attached.',
      },
    ]);
  }

  /** `/media/*`: the gallery photos from the bucket through OAC, under their `images/` keys. */
  private mediaBehavior(photoBucketName: string) {
    const bucket = Bucket.fromBucketName(this, 'PhotoBucket', photoBucketName);
    const origin = S3BucketOrigin.withOriginAccessControl(bucket, { originAccessLevels: [AccessLevel.READ] });
    Annotations.of(this).acknowledgeWarning(
      '@aws-cdk/aws-cloudfront-origins:updateImportedBucketPolicyOac',
      "The photo bucket's policy (data stack) grants the account's distributions s3:GetObject on images/* (grantGalleryReadToAccountDistributions).",
    );
    // Renditions say a year (immutable), and browsers keep them that long; this edge keeps them a day
    // at most. A deleted photo is invalidated on the photo distribution only (this distribution is
    // built after the functions that delete photos, which cannot name it), so a day bounds how long
    // the site's own host may still serve one; a revalidation once a day per edge is a cheap 304.
    const cachePolicy = new CachePolicy(this, 'MediaCachePolicy', {
      comment: 'Gallery photos on the site host: a day at the edge (deleted photos are not invalidated here)',
      defaultTtl: Duration.days(1),
      maxTtl: Duration.days(1),
      minTtl: Duration.seconds(0),
      enableAcceptEncodingGzip: false,
      enableAcceptEncodingBrotli: false,
    });
    const rewrite = new EdgeFunction(this, 'MediaToGallery', {
      comment: '/media/<tenant>/<listing>/<photo> -> the gallery key images/<tenant>/<listing>/<photo>',
      runtime: FunctionRuntime.JS_2_0,
      code: FunctionCode.fromInline(MEDIA_REWRITE_CODE),
    });
    return {
      origin,
      viewerProtocolPolicy: ViewerProtocolPolicy.REDIRECT_TO_HTTPS,
      allowedMethods: AllowedMethods.ALLOW_GET_HEAD,
      cachePolicy,
      responseHeadersPolicy: ResponseHeadersPolicy.CORS_ALLOW_ALL_ORIGINS_WITH_PREFLIGHT_AND_SECURITY_HEADERS,
      functionAssociations: [{ function: rewrite, eventType: FunctionEventType.VIEWER_REQUEST }],
      // JPEG, PNG and WebP are compressed already.
      compress: false,
    };
  }
}
