import type { ScopeRequirement } from '../domain/scopes.ts';

/** The `scope` of a site route: a publishable key calls it, not a secret one. */
export const PUBLISHABLE = 'publishable' as const;

/** One row of the route table (functions/routes.ts): what the API edge, CDK and the docs read. */
export interface RouteDefinition {
  readonly operationId: string;
  readonly method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** API Gateway path syntax: `/v1/properties/{property_id}`. */
  readonly path: string;
  /**
   * The scope a secret key needs, or a list of scopes any one of which will do; `publishable`: the
   * route is a site route, called from web pages with a publishable key (`?key=svc_pk_…`) under the
   * origin rules, its own budgets, CORS and edge caching (functions/api/middleware/site-access.ts).
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
   * Photos (`PHOTO_BUCKET`, `PHOTO_BASE_URL`): `imageQueue` sends to the photo import queue
   * (`IMAGE_IMPORT_QUEUE_URL`); `photoUpload` signs PUTs under `uploads/` only; `photoConfirm` reads
   * and deletes under `uploads/` and writes under `images/`; `photoDelete` deletes under `images/`.
   * @default - none
   */
  readonly uses?: readonly RouteUse[];
}

/** The AWS services a route may call besides the table (see `RouteDefinition.uses`). */
export type RouteUse = 'aiQueue' | 'email' | 'imageQueue' | 'photoUpload' | 'photoConfirm' | 'photoDelete';

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
