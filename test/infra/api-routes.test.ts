/**
 * The HTTP API's route keys and their per-route throttling, from templates synthesized without
 * bundling (test/infra/api.test.ts checks the bundled functions).
 */
import { Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { isPublishable, type RouteDefinition, routeKeyPaths } from '../../functions/pipeline/route.ts';
import { routes } from '../../functions/routes.ts';
import type { ServiceApp } from '../../lib/app.ts';
import { ROUTE_THROTTLE } from '../../lib/stacks/api-stack.ts';
import { sharedTestApp } from './deploy-context.ts';

const table: readonly RouteDefinition[] = routes;
let service: ServiceApp;
let routeKeys: string[];

beforeAll(() => {
  // Prepare + Act: the real app, templates only.
  service = sharedTestApp();
  routeKeys = service.api.routeGroups
    .flatMap((group) => Object.values(Template.fromStack(group).findResources('AWS::ApiGatewayV2::Route')))
    .map((route) => route.Properties.RouteKey as string);
}, 300_000);

describe('the HTTP API route keys', () => {
  it('are the route table’s route key paths (test/unit/route-keys.test.ts routes them as the local server does)', () => {
    // Prepare
    const keyPaths = routeKeyPaths(table);
    const expected = table.flatMap((route) => {
      const keyPath = keyPaths.get(route.operationId);
      return [`${route.method} ${keyPath}`, ...(isPublishable(route) ? [`OPTIONS ${keyPath}`] : [])];
    });

    // Assess
    expect([...routeKeys].sort()).toEqual([...new Set(expected)].sort());
    expect(routeKeys).toContain('POST /v1/webhooks/{endpoint_id}/deliveries/{delivery_id}');
    expect(routeKeys).toContain('POST /v1/site/properties/{property_id}/view');
  });
});

describe('per-route throttling on the $default stage', () => {
  it('caps every route key below the stage, so that a flood on one route leaves the others room', () => {
    // Prepare
    const template = Template.fromStack(service.api);
    const [stage] = Object.values(template.findResources('AWS::ApiGatewayV2::Stage'));

    // Act
    const settings = stage?.Properties.RouteSettings as Record<
      string,
      { ThrottlingRateLimit: number; ThrottlingBurstLimit: number }
    >;
    const defaults = stage?.Properties.DefaultRouteSettings;

    // Assess
    expect(Object.keys(settings).sort()).toEqual([...new Set(routeKeys)].sort());
    for (const setting of Object.values(settings)) {
      expect(setting).toEqual({
        ThrottlingRateLimit: ROUTE_THROTTLE.rateLimit,
        ThrottlingBurstLimit: ROUTE_THROTTLE.burstLimit,
      });
      expect(setting.ThrottlingRateLimit).toBeLessThan(defaults.ThrottlingRateLimit);
      expect(setting.ThrottlingBurstLimit).toBeLessThan(defaults.ThrottlingBurstLimit);
    }
    // The stage is created after the routes: API Gateway refuses settings for a route key it lacks.
    expect(stage?.DependsOn?.length).toBeGreaterThanOrEqual(service.api.routeGroups.length);
  });
});
