import { Match, Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildApp, type ServiceApp } from '../../lib/app.ts';
import { MEDIA_REWRITE_CODE } from '../../lib/constructs/site-distribution.ts';
import { DEPLOY_CONTEXT } from './deploy-context.ts';

let service: ServiceApp;
let site: Template;
let data: Template;
let siteRoutes: Template;

interface Behavior {
  PathPattern: string;
  CachePolicyId: unknown;
  AllowedMethods: string[];
  TargetOriginId: string;
  FunctionAssociations?: { EventType: string; FunctionARN: unknown }[];
  ResponseHeadersPolicyId?: unknown;
}
interface DistributionConfig {
  CacheBehaviors: Behavior[];
  Origins: {
    Id: string;
    DomainName: unknown;
    OriginAccessControlId?: unknown;
    S3OriginConfig?: { OriginAccessIdentity: string };
    CustomOriginConfig?: unknown;
  }[];
}

function distributionConfig(): DistributionConfig {
  const [distribution] = Object.values(site.findResources('AWS::CloudFront::Distribution'));
  return (distribution as { Properties: { DistributionConfig: DistributionConfig } }).Properties
    .DistributionConfig;
}

beforeAll(() => {
  service = buildApp({ stage: 'test', bundle: false, context: DEPLOY_CONTEXT });
  site = Template.fromStack(service.site);
  data = Template.fromStack(service.data);
  const group = service.api.routeGroups.find((g) => g.groupId === 'Site');
  if (!group) throw new Error('No Site route group');
  siteRoutes = Template.fromStack(group);
}, 300_000);

describe('the site distribution', () => {
  it('sends /v1/site/* and /v1/theme to the API with the site cache policy', () => {
    const config = distributionConfig();
    const patterns = config.CacheBehaviors.map((b) => b.PathPattern);
    expect(patterns).toEqual(expect.arrayContaining(['/v1/site/*', '/v1/theme']));
    const siteBehaviors = config.CacheBehaviors.filter((b) => b.PathPattern !== '/media/*');
    expect(siteBehaviors).toHaveLength(2);
    expect(
      siteBehaviors.every((b) => b.AllowedMethods.includes('OPTIONS') && b.AllowedMethods.includes('POST')),
    ).toBe(true);
    expect(new Set(siteBehaviors.map((b) => JSON.stringify(b.CachePolicyId))).size).toBe(1);
  });

  it('keys the cache on the whole query string and the Origin header, honouring the API s-maxage', () => {
    site.hasResourceProperties('AWS::CloudFront::CachePolicy', {
      CachePolicyConfig: Match.objectLike({
        DefaultTTL: 0,
        MinTTL: 0,
        ParametersInCacheKeyAndForwardedToOrigin: Match.objectLike({
          QueryStringsConfig: { QueryStringBehavior: 'all' },
          HeadersConfig: { HeaderBehavior: 'whitelist', Headers: ['Origin'] },
        }),
      }),
    });
  });

  it('forwards the viewer address and the page, never the Host header', () => {
    site.hasResourceProperties('AWS::CloudFront::OriginRequestPolicy', {
      OriginRequestPolicyConfig: Match.objectLike({
        HeadersConfig: {
          HeaderBehavior: 'whitelist',
          Headers: Match.arrayWith(['CloudFront-Viewer-Address', 'Referer']),
        },
        QueryStringsConfig: { QueryStringBehavior: 'all' },
      }),
    });
  });

  it('sends the origin secret to the API as a dynamic reference (never its value) over TLS 1.2', () => {
    const json = JSON.stringify(site.toJSON());
    expect(json).toContain('X-Origin-Verify');
    expect(json).toContain('resolve:secretsmanager');
    expect(json).toContain('TLSv1.2');
  });

  it('every site function checks the origin secret; one preflight function answers OPTIONS on each site path', () => {
    const functions = Object.values(siteRoutes.findResources('AWS::Lambda::Function')) as {
      Properties: { Environment?: { Variables?: Record<string, unknown> } };
    }[];
    expect(functions.length).toBeGreaterThan(10);
    for (const fn of functions)
      expect(fn.Properties.Environment?.Variables?.SITE_ORIGIN_SECRET_ARN).toBeDefined();
    const options = Object.values(siteRoutes.findResources('AWS::ApiGatewayV2::Route')).filter((r) =>
      String((r as { Properties: { RouteKey: string } }).Properties.RouteKey).startsWith('OPTIONS '),
    );
    expect(options).toHaveLength(13);
  });

  it('sends /media/* to the photo bucket through Origin Access Control, GET and HEAD only, cached long', () => {
    const config = distributionConfig();
    const media = config.CacheBehaviors.find((b) => b.PathPattern === '/media/*');
    expect(media).toBeDefined();
    expect(media?.AllowedMethods.sort()).toEqual(['GET', 'HEAD']);
    expect(media?.ResponseHeadersPolicyId).toBeDefined();
    const origin = config.Origins.find((o) => o.Id === media?.TargetOriginId);
    expect(origin?.S3OriginConfig).toEqual({ OriginAccessIdentity: '' });
    expect(origin?.OriginAccessControlId).toBeDefined();
    // The bucket of the data stack, by its regional S3 domain name.
    expect(JSON.stringify(origin?.DomainName)).toMatch(/PhotoBucket.*\.s3\./);
    site.hasResourceProperties('AWS::CloudFront::OriginAccessControl', {
      OriginAccessControlConfig: Match.objectLike({
        OriginAccessControlOriginType: 's3',
        SigningBehavior: 'always',
        SigningProtocol: 'sigv4',
      }),
    });
    // Photos never change under their key: a long TTL, and the query string is not part of the key.
    site.hasResourceProperties('AWS::CloudFront::CachePolicy', {
      CachePolicyConfig: Match.objectLike({
        DefaultTTL: 30 * 86_400,
        MaxTTL: 365 * 86_400,
        ParametersInCacheKeyAndForwardedToOrigin: Match.objectLike({
          QueryStringsConfig: { QueryStringBehavior: 'none' },
          HeadersConfig: { HeaderBehavior: 'none' },
        }),
      }),
    });
    expect(media?.FunctionAssociations?.map((f) => f.EventType)).toEqual(['viewer-request']);
  });

  it('maps /media/<tenant>/<listing>/<photo> to the gallery key images/…, and nothing else of the bucket', () => {
    const handler = new Function(`${MEDIA_REWRITE_CODE}; return handler;`)() as (event: {
      request: { uri: string };
    }) => { uri?: string; statusCode?: number };
    expect(handler({ request: { uri: '/media/t1/p1/abc.jpg' } }).uri).toBe('/images/t1/p1/abc.jpg');
    expect(handler({ request: { uri: '/media/uploads/t1/p1/x.jpg' } }).uri).toBe(
      '/images/uploads/t1/p1/x.jpg',
    );
    expect(handler({ request: { uri: '/media/' } }).statusCode).toBe(404);
    site.hasResourceProperties('AWS::CloudFront::Function', {
      FunctionConfig: Match.objectLike({ Runtime: 'cloudfront-js-2.0' }),
      FunctionCode: MEDIA_REWRITE_CODE,
    });
  });

  it("lets the account's distributions read only images/* of the photo bucket, without a cycle", () => {
    const policies = Object.values(data.findResources('AWS::S3::BucketPolicy')) as {
      Properties: { PolicyDocument: { Statement: Record<string, unknown>[] } };
    }[];
    const grant = policies
      .flatMap((p) => p.Properties.PolicyDocument.Statement)
      .find((s) => s.Sid === 'GalleryReadByAccountDistributions');
    expect(grant).toMatchObject({
      Effect: 'Allow',
      Action: 's3:GetObject',
      Principal: { Service: 'cloudfront.amazonaws.com' },
      Condition: {
        StringEquals: { 'AWS:SourceAccount': { Ref: 'AWS::AccountId' } },
        ArnLike: { 'AWS:SourceArn': expect.anything() },
      },
    });
    expect(JSON.stringify(grant?.Resource)).toContain('/images/*');
    expect(JSON.stringify(grant?.Condition)).toContain(':distribution/*');
    // The data stack names nothing of the site stack; the site stack imports the bucket's name.
    expect(JSON.stringify(data.toJSON())).not.toContain('-Site');
    expect(service.data.dependencies).not.toContain(service.site);
    expect(service.site.dependencies).toContain(service.data);
  });
});
