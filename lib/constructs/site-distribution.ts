import { Duration, Fn } from 'aws-cdk-lib';
import {
  AllowedMethods,
  CachedMethods,
  CacheHeaderBehavior,
  CachePolicy,
  CacheQueryStringBehavior,
  Distribution,
  HttpVersion,
  OriginProtocolPolicy,
  OriginRequestHeaderBehavior,
  OriginRequestPolicy,
  OriginRequestQueryStringBehavior,
  OriginSslPolicy,
  PriceClass,
  ViewerProtocolPolicy,
} from 'aws-cdk-lib/aws-cloudfront';
import { HttpOrigin } from 'aws-cdk-lib/aws-cloudfront-origins';
import type { ISecret } from 'aws-cdk-lib/aws-secretsmanager';
import { NagSuppressions } from 'cdk-nag';
import { Construct } from 'constructs';

/** The header the distribution adds to every request it sends to the API (functions/api/middleware/site-access.ts). */
export const ORIGIN_VERIFY_HEADER = 'X-Origin-Verify';

export interface SiteDistributionProps {
  /** The HTTP API's endpoint, `https://<id>.execute-api.<region>.amazonaws.com`. */
  readonly apiEndpoint: string;
  /** The value CloudFront sends in {@link ORIGIN_VERIFY_HEADER}; the site routes compare it. */
  readonly originSecret: ISecret;
  /**
   * Edge locations to serve from.
   * @default PriceClass.PRICE_CLASS_100 (North America and Europe: the agencies' markets)
   */
  readonly priceClass?: PriceClass;
}

/**
 * CloudFront in front of the site API (issue 12, architecture "CloudFront caching the site reads"):
 * - `/v1/site/*` and `/v1/theme` go to the HTTP API, cached per full query string (key, origin,
 *   locale and every filter) and `Origin` header, for as long as the API's `Cache-Control` says
 *   (successful GETs `s-maxage=60, stale-while-revalidate=300`, errors `no-store`); the viewer's
 *   address travels in `CloudFront-Viewer-Address` (what the visitor budgets count), the page in
 *   `Referer`, and every request carries the origin secret, so the site routes refuse anything that
 *   did not come through here;
 * - `/media/*` (the photo bucket through Origin Access Control) is not here yet: the bucket lives in
 *   the data stack, and an OAC grant on its policy naming this distribution would make the data
 *   stack depend on this one (a cycle). It comes with the photos (issue 11), e.g. with the grant
 *   keyed on the distribution's id passed the other way;
 * - anything else goes to the API uncached, as sent (the secret API through the same host).
 */
export class SiteDistribution extends Construct {
  readonly distribution: Distribution;
  readonly siteCachePolicy: CachePolicy;
  readonly siteOriginRequestPolicy: OriginRequestPolicy;

  constructor(scope: Construct, id: string, props: SiteDistributionProps) {
    super(scope, id);
    const apiOrigin = new HttpOrigin(Fn.select(2, Fn.split('/', props.apiEndpoint)), {
      protocolPolicy: OriginProtocolPolicy.HTTPS_ONLY,
      originSslProtocols: [OriginSslPolicy.TLS_V1_2],
      // A dynamic reference: CloudFormation resolves it at deploy time, the template holds none of it.
      customHeaders: { [ORIGIN_VERIFY_HEADER]: props.originSecret.secretValue.unsafeUnwrap() },
    });

    this.siteCachePolicy = new CachePolicy(this, 'SiteCachePolicy', {
      comment: 'Site reads: per full URL and Origin, for as long as the API says (s-maxage)',
      queryStringBehavior: CacheQueryStringBehavior.all(),
      headerBehavior: CacheHeaderBehavior.allowList('Origin'),
      minTtl: Duration.seconds(0),
      defaultTtl: Duration.seconds(0),
      maxTtl: Duration.days(1),
      enableAcceptEncodingGzip: true,
      enableAcceptEncodingBrotli: true,
    });
    this.siteOriginRequestPolicy = new OriginRequestPolicy(this, 'SiteOriginRequestPolicy', {
      comment: 'Site routes: the viewer address (budgets), the page (Referer), CORS preflight headers',
      queryStringBehavior: OriginRequestQueryStringBehavior.all(),
      headerBehavior: OriginRequestHeaderBehavior.allowList(
        'CloudFront-Viewer-Address',
        'Referer',
        'Content-Type',
        'Access-Control-Request-Method',
        'Access-Control-Request-Headers',
      ),
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
    this.distribution = new Distribution(this, 'Distribution', {
      comment: 'Listings and Leads: site reads cached at the edge, photos',
      httpVersion: HttpVersion.HTTP2_AND_3,
      priceClass: props.priceClass ?? PriceClass.PRICE_CLASS_100,
      defaultBehavior: {
        origin: apiOrigin,
        viewerProtocolPolicy: ViewerProtocolPolicy.HTTPS_ONLY,
        allowedMethods: AllowedMethods.ALLOW_ALL,
        cachePolicy: CachePolicy.CACHING_DISABLED,
        originRequestPolicy: OriginRequestPolicy.ALL_VIEWER_EXCEPT_HOST_HEADER,
      },
      additionalBehaviors: {
        '/v1/site/*': siteBehavior,
        '/v1/theme': siteBehavior,
      },
    });
    NagSuppressions.addResourceSuppressions(this.distribution, [
      {
        id: 'AwsSolutions-CFR1',
        reason:
          'Agencies sell to buyers from any country, and their websites must load for all of them: no geographic restriction is wanted.',
      },
      {
        id: 'AwsSolutions-CFR2',
        reason:
          'Abuse is bounded in the application: per-visitor, per-Tenant and per-key budgets counted on ' +
          "CloudFront's viewer address (interface §8), and cached answers cost the origin nothing. A WAF " +
          'web ACL (about $5 a month plus per-request fees) can be attached later without code changes.',
      },
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
}
