import { Match, Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { SITE_REQUEST_HEADERS } from '../../functions/pipeline/middleware/site-headers.ts';
import { isPublishable } from '../../functions/pipeline/route.ts';
import { routes } from '../../functions/routes.ts';
import { buildApp, type ServiceApp } from '../../lib/app.ts';
import { MEDIA_REWRITE_CODE, NOT_FOUND_CODE } from '../../lib/constructs/site-distribution.ts';
import { DEPLOY_CONTEXT, sharedTestApp } from './deploy-context.ts';

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
  OriginRequestPolicyId?: unknown;
}
interface DistributionConfig {
  CacheBehaviors: Behavior[];
  DefaultCacheBehavior: Omit<Behavior, 'PathPattern'>;
  Origins: {
    Id: string;
    DomainName: unknown;
    OriginAccessControlId?: unknown;
    S3OriginConfig?: { OriginAccessIdentity: string };
    CustomOriginConfig?: unknown;
    OriginCustomHeaders?: { HeaderName: string; HeaderValue: unknown }[];
  }[];
}

/** A CloudFront path pattern as CloudFront reads it: `*` any characters, `?` one, case-sensitive. */
function patternMatches(pattern: string, path: string): boolean {
  const source = [...pattern]
    .map((c) => (c === '*' ? '.*' : c === '?' ? '.' : c.replace(/[.+^${}()|[\]\\]/, (m) => `\\${m}`)))
    .join('');
  return new RegExp(`^${source}$`).test(path);
}

/** The behaviour CloudFront picks for `path`: the first whose pattern matches, else the default. */
function behaviorFor(config: DistributionConfig, path: string): Omit<Behavior, 'PathPattern'> {
  return (
    config.CacheBehaviors.find((b) => patternMatches(b.PathPattern, path)) ?? config.DefaultCacheBehavior
  );
}

/** A concrete path of a route row: each variable filled in. */
function concretePath(path: string): string {
  return path.replace(/\{(\w+)\}/g, 'x1');
}

/** The headers a behaviour sends to its origin, lowercased: its cache key's and its origin request policy's. */
function forwardedHeaders(behavior: Omit<Behavior, 'PathPattern'>): string[] {
  const resource = (ref: unknown) => site.toJSON().Resources[(ref as { Ref?: string }).Ref ?? '']?.Properties;
  const cacheHeaders: string[] =
    resource(behavior.CachePolicyId)?.CachePolicyConfig.ParametersInCacheKeyAndForwardedToOrigin.HeadersConfig
      .Headers ?? [];
  const originHeaders: string[] = behavior.OriginRequestPolicyId
    ? (resource(behavior.OriginRequestPolicyId)?.OriginRequestPolicyConfig.HeadersConfig.Headers ?? [])
    : [];
  return [...cacheHeaders, ...originHeaders].map((h) => h.toLowerCase());
}

function distributionConfig(): DistributionConfig {
  const [distribution] = Object.values(site.findResources('AWS::CloudFront::Distribution'));
  return (distribution as { Properties: { DistributionConfig: DistributionConfig } }).Properties
    .DistributionConfig;
}

beforeAll(() => {
  service = sharedTestApp();
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
    expect(patterns).toEqual(expect.arrayContaining(['/v1/site/*', '/v1/theme', '/v1/theme/']));
    const siteBehaviors = config.CacheBehaviors.filter((b) => b.PathPattern !== '/media/*');
    expect(siteBehaviors).toHaveLength(3);
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
          Headers: Match.arrayWith(['Referer', 'CloudFront-Viewer-Address']),
        },
        QueryStringsConfig: { QueryStringBehavior: 'all' },
      }),
    });
  });

  it('sends every site route to a site behaviour, with or without a trailing slash, and no other route', () => {
    // Prepare
    const config = distributionConfig();
    const siteCachePolicy = JSON.stringify(
      config.CacheBehaviors.find((b) => b.PathPattern === '/v1/site/*')?.CachePolicyId,
    );

    for (const route of routes) {
      // Act
      const path = concretePath(route.path);
      const behaviors = [behaviorFor(config, path), behaviorFor(config, `${path}/`)];

      // Assess
      for (const behavior of behaviors) {
        expect(JSON.stringify(behavior.CachePolicyId) === siteCachePolicy, `${route.method} ${path}`).toBe(
          isPublishable(route),
        );
      }
    }
  });

  it('forwards every header the site routes read (SITE_REQUEST_HEADERS) on every site path', () => {
    // Prepare
    const config = distributionConfig();
    const read = Object.values(SITE_REQUEST_HEADERS).map((h) => h.toLowerCase());

    for (const route of routes.filter(isPublishable)) {
      // Act
      const forwarded = forwardedHeaders(behaviorFor(config, concretePath(route.path)));

      // Assess
      expect(forwarded, `${route.method} ${route.path}`).toEqual(expect.arrayContaining(read));
    }
    expect(read).toContain('idempotency-key');
  });

  it('answers every path no behaviour claims 404 at the edge, and its origin carries no secret', () => {
    // Prepare
    const config = distributionConfig();
    const fallback = config.DefaultCacheBehavior;
    const handler = new Function(`${NOT_FOUND_CODE}; return handler;`)() as (event: {
      request: { uri: string; method: string };
    }) => { statusCode?: number };

    // Act
    const origin = config.Origins.find((o) => o.Id === fallback.TargetOriginId);
    const answers = ['/', '/v1/leads', '/v1/site', '/v1/themes', '/admin'].map(
      (uri) => handler({ request: { uri, method: 'GET' } }).statusCode,
    );

    // Assess
    expect(fallback.FunctionAssociations?.map((f) => f.EventType)).toEqual(['viewer-request']);
    expect(answers).toEqual([404, 404, 404, 404, 404]);
    expect(JSON.stringify(origin?.OriginCustomHeaders ?? [])).not.toMatch(/X-Origin-Verify|secretsmanager/);
    expect(fallback.OriginRequestPolicyId).toBeUndefined();
    site.hasResourceProperties('AWS::CloudFront::Function', {
      FunctionConfig: Match.objectLike({ Runtime: 'cloudfront-js-2.0' }),
      FunctionCode: NOT_FOUND_CODE,
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

  it('sends /media/* to the photo bucket through Origin Access Control, GET and HEAD only, a day at the edge', () => {
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
    // A day at the edge at most (a deleted photo is invalidated on the photo distribution, not here),
    // and the query string is not part of the key.
    site.hasResourceProperties('AWS::CloudFront::CachePolicy', {
      CachePolicyConfig: Match.objectLike({
        DefaultTTL: 86_400,
        MaxTTL: 86_400,
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

describe('the web ACL in front of the site distribution (deploy parameter waf, on by default)', () => {
  it('is a CloudFront-scope web ACL in us-east-1 that the distribution reads across regions', () => {
    // Prepare
    const firewall = service.edgeFirewall;
    if (!firewall) throw new Error('No edge firewall stack with the default waf');
    const template = Template.fromStack(firewall);

    // Act
    const config = distributionConfig() as DistributionConfig & { WebACLId?: unknown };

    // Assess
    expect(firewall.region).toBe('us-east-1');
    template.hasResourceProperties('AWS::WAFv2::WebACL', {
      Scope: 'CLOUDFRONT',
      DefaultAction: { Allow: {} },
    });
    expect(config.WebACLId).toEqual({
      'Fn::GetStackOutput': { StackName: firewall.stackName, OutputName: 'WebAclArn', Region: 'us-east-1' },
    });
    template.hasOutput('WebAclArn', { Value: { 'Fn::GetAtt': [Match.anyValue(), 'Arn'] } });
    expect(service.site.dependencies).toContain(firewall);
  });

  it('blocks per client address: API paths over the limit, and API requests without a publishable key sooner', () => {
    // Prepare
    const template = Template.fromStack(service.edgeFirewall as never);
    const [acl] = Object.values(template.findResources('AWS::WAFv2::WebACL'));

    // Act
    const rules = acl?.Properties.Rules as {
      Name: string;
      Action: unknown;
      Statement: { RateBasedStatement: Record<string, unknown> };
    }[];
    const byName = Object.fromEntries(rules.map((r) => [r.Name, r]));
    const withoutKey = byName.ApiRequestsWithoutKeyPerIp?.Statement.RateBasedStatement;
    const perIp = byName.ApiRequestsPerIp?.Statement.RateBasedStatement;

    // Assess
    expect(rules.every((r) => JSON.stringify(r.Action) === '{"Block":{}}')).toBe(true);
    for (const statement of [withoutKey, perIp]) {
      expect(statement).toMatchObject({ AggregateKeyType: 'IP', EvaluationWindowSec: 60 });
      expect(JSON.stringify(statement?.ScopeDownStatement)).toContain('"SearchString":"/v1/"');
    }
    expect(withoutKey?.Limit).toBeLessThan(perIp?.Limit as number);
    const keyCheck = JSON.stringify(withoutKey?.ScopeDownStatement);
    expect(keyCheck).toContain('"NotStatement"');
    expect(keyCheck).toContain('"SingleQueryArgument":{"Name":"key"}');
    expect(keyCheck).toContain('"SearchString":"svc_pk_"');
  });

  it('is left out with -c waf=off (no us-east-1 stack, the distribution without a web ACL), and waf must be on or off', () => {
    // Act
    const off = buildApp({ stage: 'test', bundle: false, context: { ...DEPLOY_CONTEXT, waf: 'off' } });
    const [distribution] = Object.values(
      Template.fromStack(off.site).findResources('AWS::CloudFront::Distribution'),
    );

    // Assess
    expect(off.edgeFirewall).toBeUndefined();
    expect(off.app.node.children.some((c) => c.node.id.endsWith('-EdgeFirewall'))).toBe(false);
    expect(distribution?.Properties.DistributionConfig.WebACLId).toBeUndefined();
    expect(() =>
      buildApp({ stage: 'test', bundle: false, context: { ...DEPLOY_CONTEXT, waf: 'no' } }),
    ).toThrow(/Context waf must be on or off, not "no": pass -c waf=off/);
  });
});
