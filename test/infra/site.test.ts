import { Match, Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildApp, type ServiceApp } from '../../lib/app.ts';
import { DEPLOY_CONTEXT } from './deploy-context.ts';

let service: ServiceApp;
let site: Template;
let siteRoutes: Template;

beforeAll(() => {
  service = buildApp({ stage: 'test', bundle: false, context: DEPLOY_CONTEXT });
  site = Template.fromStack(service.site);
  const group = service.api.routeGroups.find((g) => g.groupId === 'Site');
  if (!group) throw new Error('No Site route group');
  siteRoutes = Template.fromStack(group);
}, 300_000);

describe('the site distribution', () => {
  it('sends /v1/site/* and /v1/theme to the API with the site cache policy', () => {
    const [distribution] = Object.values(site.findResources('AWS::CloudFront::Distribution'));
    const config = (distribution as { Properties: { DistributionConfig: Record<string, unknown> } })
      .Properties.DistributionConfig as {
      CacheBehaviors: { PathPattern: string; CachePolicyId: unknown; AllowedMethods: string[] }[];
    };
    const patterns = config.CacheBehaviors.map((b) => b.PathPattern);
    expect(patterns).toEqual(expect.arrayContaining(['/v1/site/*', '/v1/theme']));
    const siteBehaviors = config.CacheBehaviors;
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
});
