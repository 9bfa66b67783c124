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
   * origin rules, its own budgets, CORS and edge caching (functions/pipeline/middleware/site-access.ts).
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
   * and deletes under `uploads/` and keeps the original under `originals/`; `photoDelete` deletes a
   * photo's files under `images/` and `originals/`.
   * `catalogueRead`: reads the Tenants' catalogue snapshots (`CATALOGUE_BUCKET`, `s3:GetObject`
   * under `catalogue/`, and `s3:ListBucket` so that a missing one is a 404): the site reads and
   * lead matches.
   * @default - none
   */
  readonly uses?: readonly RouteUse[];
}

/** The AWS services a route may call besides the table (see `RouteDefinition.uses`). */
export type RouteUse =
  | 'aiQueue'
  | 'email'
  | 'imageQueue'
  | 'photoUpload'
  | 'photoConfirm'
  | 'photoDelete'
  | 'catalogueRead';

/** One segment of a path template: literal text, or a variable with literal text around it. */
type PathSegment =
  | { readonly kind: 'literal'; readonly text: string }
  | { readonly kind: 'variable'; readonly name: string; readonly before: string; readonly after: string };

/** `/v1/webhooks/{endpoint_id}/deliveries/{delivery_id}:redeliver` → its segments, without the leading empty one. */
function segmentsOf(path: string): PathSegment[] {
  return path
    .split('/')
    .slice(1)
    .map((text) => {
      const variable = text.match(/^([^{}]*)\{(\w+)\}([^{}]*)$/);
      if (!variable) return { kind: 'literal', text };
      const [, before = '', name = '', after = ''] = variable;
      return { kind: 'variable', name, before, after };
    });
}

function isWholeSegmentVariable(segment: PathSegment): boolean {
  return segment.kind === 'variable' && segment.before === '' && segment.after === '';
}

/**
 * The API Gateway route key path of every row of `table`, by operationId. Two rules:
 * - API Gateway takes a path variable only as a whole segment, so a variable with literal text around
 *   it (`{delivery_id}:redeliver`) becomes the variable alone (`{delivery_id}`). That key also
 *   matches the bare segment, which the row's own path does not: the function answers those 404
 *   itself, as the local server does (see {@link operationParameters}).
 * - Sibling routes share one variable name at each position: REST APIs refuse two names at one
 *   position under one parent, and HTTP APIs do not document what they do with them
 *   (`/v1/site/properties/{property_id}/similar` beside `/v1/site/properties/{slug}/view`). The first
 *   row (in table order) with a variable under a given prefix names it for all the others; each
 *   function maps the key's name back to its own parameter's ({@link operationParameters}).
 */
export function routeKeyPaths(table: readonly RouteDefinition[]): ReadonlyMap<string, string> {
  const sharedNames = new Map<string, string>();
  const keyPaths = new Map<string, string>();
  for (const route of table) {
    let keyPath = '';
    const names = new Set<string>();
    for (const segment of segmentsOf(route.path)) {
      if (segment.kind === 'literal') {
        keyPath += `/${segment.text}`;
        continue;
      }
      const name = sharedNames.get(keyPath) ?? segment.name;
      sharedNames.set(keyPath, name);
      if (names.has(name)) {
        throw new Error(
          `Route ${route.operationId}: its route key would name two variables {${name}} (the name ` +
            'its siblings use at one position); rename a variable in functions/routes.ts',
        );
      }
      names.add(name);
      keyPath += `/{${name}}`;
    }
    keyPaths.set(route.operationId, keyPath);
  }
  return keyPaths;
}

/**
 * The operation's own path parameters (named as in its row) from those API Gateway handed over for
 * `routeKey` (named as in the route key, each a whole segment), or undefined when the request path is
 * not the row's path: a segment lacks the literal text the row puts around its variable
 * (`…/deliveries/<uuid>` on the key of `…/deliveries/{delivery_id}:redeliver`). The local server
 * never routes such a path, so the function answers it 404 as well. An event without a route key (or
 * whose key is the row's own path, as the bench builds them) carries the row's names already.
 */
export function operationParameters(
  route: RouteDefinition,
  routeKey: string | undefined,
  pathParameters: Readonly<Record<string, string | undefined>>,
): Record<string, string | undefined> | undefined {
  const keyPath = routeKey?.startsWith(`${route.method} `)
    ? routeKey.slice(route.method.length + 1)
    : route.path;
  const own = segmentsOf(route.path);
  const keyed = segmentsOf(keyPath);
  if (keyed.length !== own.length) throw new Error(`Route key ${routeKey} does not fit ${route.operationId}`);
  const parameters: Record<string, string | undefined> = {};
  for (const [index, segment] of own.entries()) {
    if (segment.kind === 'literal') continue;
    const key = keyed[index] as PathSegment;
    if (key.kind !== 'variable') throw new Error(`Route key ${routeKey} does not fit ${route.operationId}`);
    const value = pathParameters[key.name];
    // Taken as handed over: a missing value (the schema names it), a key segment that is the row's own
    // (its literal text matched already), or a row variable that spans the whole segment.
    if (value === undefined || !isWholeSegmentVariable(key) || isWholeSegmentVariable(segment)) {
      parameters[segment.name] = value;
      continue;
    }
    const { before, after } = segment;
    if (value.length <= before.length + after.length || !value.startsWith(before) || !value.endsWith(after)) {
      return undefined;
    }
    parameters[segment.name] = value.slice(before.length, value.length - after.length);
  }
  return parameters;
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

/** What a path no route matches is answered, by the local server and by a function whose route key matched more than its row. */
export const NO_ROUTE_BODY = { detail: 'Not Found' } as const;
