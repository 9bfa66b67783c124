import type { RouteDefinition } from '../../pipeline/route.ts';

/** Rows of the route table (functions/routes.ts) for this resource. */
export const propertyRoutes = [
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
] as const satisfies readonly RouteDefinition[];
