import { Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import type { RouteDefinition } from '../../functions/pipeline/route.ts';
import { routes } from '../../functions/routes.ts';
import { buildApp } from '../../lib/app.ts';
import { MAX_ROUTES_PER_GROUP } from '../../lib/stacks/api-stack.ts';
import { DEPLOY_CONTEXT } from './deploy-context.ts';

/** `count` routes of one tag, reusing real handler entries (bundling is off, so only paths matter). */
function syntheticRoutes(tag: string, count: number): RouteDefinition[] {
  return Array.from({ length: count }, (_, i) => {
    const real = routes[i % routes.length]!;
    return {
      ...real,
      operationId: `${tag.toLowerCase()}Op${i}`,
      path: `/v1/${tag.toLowerCase()}/op${i}`,
      tag,
    };
  });
}

function resourceCounts(routeTable: RouteDefinition[]): Map<string, number> {
  const { app } = buildApp({ stage: 'scale', bundle: false, routes: routeTable, context: DEPLOY_CONTEXT });
  const counts = new Map<string, number>();
  for (const stack of app.node.findAll().filter((c): c is Stack => Stack.isStack(c))) {
    counts.set(stack.node.path, Object.keys(Template.fromStack(stack).toJSON().Resources ?? {}).length);
  }
  return counts;
}

describe('growth of the route table', () => {
  it('keeps every stack under 400 resources with ~60 routes, one tag holding the most a group may', () => {
    // Prepare
    const table = [
      ...syntheticRoutes('Leads', MAX_ROUTES_PER_GROUP),
      ...['Places', 'Listings', 'Activities', 'Webhooks'].flatMap((tag) => syntheticRoutes(tag, 6)),
    ];

    // Act
    const counts = resourceCounts(table);

    // Assess
    expect(table.length).toBeGreaterThanOrEqual(60);
    for (const [path, count] of counts) expect(count, path).toBeLessThan(400);
  }, 300_000); // a synth of every stack; slow on a busy 2-core machine

  it('refuses a tag with more routes than a group may hold', () => {
    // Prepare
    const table = syntheticRoutes('Leads', MAX_ROUTES_PER_GROUP + 1);

    // Act
    const build = () => buildApp({ stage: 'scale', bundle: false, routes: table, context: DEPLOY_CONTEXT });

    // Assess
    expect(build).toThrow(/Split the tag/);
  });
});
