import type { ScopeRequirement } from './domain/scopes.ts';
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
import { siteRoutes } from './http/site/routes.ts';
import { webhookRoutes } from './http/webhooks/routes.ts';

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
/** The `scope` of a site route: a publishable key calls it, not a secret one. */
export const PUBLISHABLE = 'publishable' as const;

export interface RouteDefinition {
  readonly operationId: string;
  readonly method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** API Gateway path syntax: `/v1/properties/{property_id}`. */
  readonly path: string;
  /**
   * The scope a secret key needs, or a list of scopes any one of which will do; `publishable`: the
   * route is a site route, called from web pages with a publishable key (`?key=svc_pk_…`) under the
   * origin rules, its own budgets, CORS and edge caching (functions/platform/middleware/site-access.ts).
   */
  readonly scope: ScopeRequirement | typeof PUBLISHABLE;
  readonly entry: string;
  readonly summary: string;
  readonly tag: string;
  /**
   * AWS services the operation calls besides the table: CDK grants exactly these
   * (lib/stacks/route-group-stack.ts). `aiQueue`: sends to the AI queue (`AI_QUEUE_URL`,
   * `sqs:SendMessage`); `email`: sends email through SES (`EMAIL_FROM`, `ses:SendEmail` on the
   * sender's identity). Without it, the function gets neither, and a call to either throws.
   * @default - none
   */
  readonly uses?: readonly ('aiQueue' | 'email')[];
}

export const routes = [
  ...placeRoutes,
  ...propertyRoutes,
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

/**
 * The route's path as an API Gateway route key path. API Gateway takes a path variable only as a
 * whole segment, so an action suffix after a variable (`{delivery_id}:redeliver`) is matched by the
 * variable alone (`{delivery_id}`), and `pathParameters` then carry the suffix: see
 * `stripActionSuffixes`. No two rows may differ only by such a suffix (the route table test checks).
 */
export function apiGatewayPath(path: string): string {
  return path.replace(/\{(\w+)\}[^/]+/g, '{$1}');
}

/**
 * The path parameters of `route` without the action suffixes API Gateway left on them
 * (`<uuid>:redeliver` → `<uuid>`); the local server already matches the full segment.
 */
export function stripActionSuffixes(
  route: RouteDefinition,
  parameters: Record<string, string | undefined>,
): Record<string, string | undefined> {
  const stripped = { ...parameters };
  for (const [, name, suffix] of route.path.matchAll(/\{(\w+)\}([^/]+)/g)) {
    const value = stripped[name as string];
    if (value?.endsWith(suffix as string))
      stripped[name as string] = value.slice(0, -(suffix as string).length);
  }
  return stripped;
}

/** Writes are every method but GET: they need an active subscription and accept Idempotency-Key. */
export function isWrite(route: RouteDefinition): boolean {
  return route.method !== 'GET';
}

/** True for a site route (publishable key, origin rules, CORS, edge cache). */
export function isPublishable(route: RouteDefinition): boolean {
  return route.scope === PUBLISHABLE;
}

/** The scope a secret key needs for `route` (a site route needs none: it takes no secret key). */
export function secretScope(route: RouteDefinition): ScopeRequirement | undefined {
  return route.scope === PUBLISHABLE ? undefined : route.scope;
}
