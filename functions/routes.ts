import { activityRoutes } from './http/activities/routes.ts';
import { agentRoutes } from './http/agents/routes.ts';
import { areaRoutes } from './http/areas/routes.ts';
import { eventRoutes } from './http/events/routes.ts';
import { inquiryRoutes } from './http/inquiries/routes.ts';
import { leadCriteriaRoutes } from './http/lead-criteria/routes.ts';
import { leadPropertyRoutes } from './http/lead-properties/routes.ts';
import { leadRoutes } from './http/leads/routes.ts';
import { placeRoutes } from './http/places/routes.ts';
import { propertyRoutes } from './http/properties/routes.ts';
import { propertyImageRoutes } from './http/property-images/routes.ts';
import { siteRoutes } from './http/site/routes.ts';
import { webhookRoutes } from './http/webhooks/routes.ts';
import type { RouteDefinition } from './pipeline/route.ts';
import { registerRoutes } from './pipeline/route-registry.ts';

/**
 * THE route table. Every HTTP operation is one row: CDK builds one API route and one function per
 * row (lib/stacks/api-stack.ts), the local server mounts the same rows (scripts/local/server.ts),
 * and the OpenAPI document is generated from them (scripts/openapi.ts). No route is declared
 * anywhere else.
 *
 * `entry` is the handler module under functions/http/; it exports `handler` and `operation`.
 * Each resource keeps its rows beside its handlers (functions/http/<resource>/routes.ts); this is
 * the one place they are put together.
 */
export const routes = [
  ...placeRoutes,
  ...propertyRoutes,
  ...propertyImageRoutes,
  ...areaRoutes,
  ...leadRoutes,
  ...inquiryRoutes,
  ...activityRoutes,
  ...leadPropertyRoutes,
  ...leadCriteriaRoutes,
  ...agentRoutes,
  ...eventRoutes,
  ...webhookRoutes,
  ...siteRoutes,
] as const satisfies readonly RouteDefinition[];

export type OperationId = (typeof routes)[number]['operationId'];

export function routeFor(operationId: OperationId): RouteDefinition {
  const route = routes.find((r) => r.operationId === operationId);
  if (!route) throw new Error(`No route ${operationId} in functions/routes.ts`);
  return route;
}

// Whoever loads the table serves its operations (the local server, the OpenAPI generator, the tests);
// a deployed function registers its own row instead (lib/bundling.ts).
registerRoutes(routes);
