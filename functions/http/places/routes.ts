import type { RouteDefinition } from '../../pipeline/route.ts';

/** Rows of the route table (functions/routes.ts) for this resource. */
export const placeRoutes = [
  {
    operationId: 'listPlaces',
    method: 'GET',
    path: '/v1/places',
    scope: 'properties:read',
    entry: 'places/list-places.ts',
    summary: 'List the Place catalogue (the place_code values listings accept)',
    tag: 'Places',
  },
] as const satisfies readonly RouteDefinition[];
