import type { RouteDefinition } from '../../pipeline/route.ts';

/** Rows of the route table (functions/routes.ts) for this resource. */
export const leadPropertyRoutes = [
  {
    operationId: 'listLeadProperties',
    method: 'GET',
    path: '/v1/leads/{lead_id}/properties',
    scope: 'leads:read',
    entry: 'lead-properties/list-lead-properties.ts',
    summary: 'List the listings linked to a Lead',
    tag: 'Leads',
  },
  {
    operationId: 'linkLeadProperty',
    method: 'POST',
    path: '/v1/leads/{lead_id}/properties',
    scope: 'leads:write',
    entry: 'lead-properties/link-lead-property.ts',
    summary: 'Link a listing to a Lead (201 linked; 200 when already linked, with its role updated)',
    tag: 'Leads',
  },
] as const satisfies readonly RouteDefinition[];
