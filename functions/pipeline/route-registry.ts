import type { RouteDefinition } from './route.ts';

/**
 * The route rows this process serves, by operationId. The route table (functions/routes.ts) registers
 * all its rows when it loads (the local server, the OpenAPI generator, the tests); a deployed Lambda
 * registers only its own row, from the entry module lib/bundling.ts generates, so that no function
 * bundles or loads the rows (and the code paths) of the others.
 */
const registered = new Map<string, RouteDefinition>();

/** Makes `rows` known to {@link registeredRoute}; a row registered again replaces the earlier one. */
export function registerRoutes(rows: readonly RouteDefinition[]): void {
  for (const row of rows) registered.set(row.operationId, row);
}

/**
 * The registered row of `operationId`. Operations look their row up on their first request (not when
 * their module loads), so the entry may register it after importing the handler.
 */
export function registeredRoute(operationId: string): RouteDefinition {
  const route = registered.get(operationId);
  if (!route) {
    throw new Error(
      `No route row registered for ${operationId}: import functions/routes.ts, or bundle the function ` +
        'through lib/bundling.ts, which registers its row.',
    );
  }
  return route;
}
