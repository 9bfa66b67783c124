import type { RouteDefinition } from '../../pipeline/route.ts';

/**
 * Rows of the route table (functions/routes.ts) for the events log. A key needs any one of the
 * three read scopes; which events it then sees is decided per event kind (services/events.ts).
 */
export const eventRoutes = [
  {
    operationId: 'listEvents',
    method: 'GET',
    path: '/v1/events',
    scope: ['leads:read', 'activities:read', 'properties:read'],
    entry: 'events/list-events.ts',
    summary:
      'Catch up on events of the last 30 days, oldest first (the kinds the key may read); an event is listed once a few seconds old, so a later page only ever appends',
    tag: 'Events',
  },
  {
    operationId: 'getEvent',
    method: 'GET',
    path: '/v1/events/{event_id}',
    scope: ['leads:read', 'activities:read', 'properties:read'],
    entry: 'events/get-event.ts',
    summary: 'Read one event',
    tag: 'Events',
  },
] as const satisfies readonly RouteDefinition[];
