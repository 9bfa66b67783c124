import type { RouteDefinition } from '../../pipeline/route.ts';

/** Rows of the route table (functions/routes.ts) for this resource. */
export const areaRoutes = [
  {
    operationId: 'listAreas',
    method: 'GET',
    path: '/v1/areas',
    scope: 'properties:read',
    entry: 'areas/list-areas.ts',
    summary: "List the Tenant's Areas (regions, zones, neighborhoods, communities)",
    tag: 'Areas',
  },
] as const satisfies readonly RouteDefinition[];
