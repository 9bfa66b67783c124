import type { Scope } from './domain/scopes.ts';

/**
 * THE route table. Every HTTP operation is one row: CDK builds one API route and one function per
 * row (lib/stacks/api-stack.ts), the local server mounts the same rows (scripts/local/server.ts),
 * and the OpenAPI document is generated from them (scripts/openapi.ts). No route is declared
 * anywhere else.
 *
 * `entry` is the handler module under functions/http/; it exports `handler` and `operation`.
 */
export interface RouteDefinition {
  readonly operationId: string;
  readonly method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** API Gateway path syntax: `/v1/properties/{property_id}`. */
  readonly path: string;
  readonly scope: Scope;
  readonly entry: string;
  readonly summary: string;
  readonly tag: string;
}

export const routes = [
  {
    operationId: 'listPlaces',
    method: 'GET',
    path: '/v1/places',
    scope: 'properties:read',
    entry: 'places/list-places.ts',
    summary: 'List the Place catalogue (the place_code values listings accept)',
    tag: 'Places',
  },
  {
    operationId: 'createProperty',
    method: 'POST',
    path: '/v1/properties',
    scope: 'properties:write',
    entry: 'properties/create-property.ts',
    summary: 'Create a listing',
    tag: 'Listings',
  },
  {
    operationId: 'listProperties',
    method: 'GET',
    path: '/v1/properties',
    scope: 'properties:read',
    entry: 'properties/list-properties.ts',
    summary: 'List listings, least recently updated first',
    tag: 'Listings',
  },
  {
    operationId: 'getProperty',
    method: 'GET',
    path: '/v1/properties/{property_id}',
    scope: 'properties:read',
    entry: 'properties/get-property.ts',
    summary: 'Read one listing',
    tag: 'Listings',
  },
  {
    operationId: 'updateProperty',
    method: 'PATCH',
    path: '/v1/properties/{property_id}',
    scope: 'properties:write',
    entry: 'properties/update-property.ts',
    summary: 'Edit a listing (fields present are changed, null clears)',
    tag: 'Listings',
  },
  {
    operationId: 'archiveProperty',
    method: 'DELETE',
    path: '/v1/properties/{property_id}',
    scope: 'properties:write',
    entry: 'properties/archive-property.ts',
    summary: 'Archive a listing (it keeps its slug and price history)',
    tag: 'Listings',
  },
  {
    operationId: 'upsertPropertyByRef',
    method: 'PUT',
    path: '/v1/properties/by-ref/{internal_ref}',
    scope: 'properties:write',
    entry: 'properties/upsert-property-by-ref.ts',
    summary: "Create or update the listing with the agency's own reference (201 created, 200 updated)",
    tag: 'Listings',
  },
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

export type OperationId = (typeof routes)[number]['operationId'];

export function routeFor(operationId: OperationId): RouteDefinition {
  const route = routes.find((r) => r.operationId === operationId);
  if (!route) throw new Error(`No route ${operationId} in functions/routes.ts`);
  return route;
}

/** Writes are every method but GET: they need an active subscription and accept Idempotency-Key. */
export function isWrite(route: RouteDefinition): boolean {
  return route.method !== 'GET';
}
