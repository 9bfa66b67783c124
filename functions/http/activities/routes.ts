import type { RouteDefinition } from '../../routes.ts';

/** Rows of the route table (functions/routes.ts) for this resource. */
export const activityRoutes = [] as const satisfies readonly RouteDefinition[];
