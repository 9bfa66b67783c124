import type { RouteDefinition } from '../../pipeline/route.ts';

/** Rows of the route table (functions/routes.ts) for this resource. */
export const leadRoutes = [
  {
    operationId: 'createLead',
    method: 'POST',
    path: '/v1/leads',
    scope: 'leads:write',
    entry: 'leads/create-lead.ts',
    summary: 'Add a Lead by hand (201 new; 200 when its email or phone merged it onto an existing Lead)',
    tag: 'Leads',
  },
  {
    operationId: 'listLeads',
    method: 'GET',
    path: '/v1/leads',
    scope: 'leads:read',
    entry: 'leads/list-leads.ts',
    summary: 'List Leads, least recently updated first (filters status, tier, owner, q)',
    tag: 'Leads',
  },
  {
    operationId: 'ingestLead',
    method: 'POST',
    path: '/v1/leads:ingest',
    scope: 'leads:write',
    entry: 'leads/ingest-lead.ts',
    summary: 'Ingest one event of an integration (201 Lead created; 200 existing Lead updated)',
    tag: 'Leads',
  },
  {
    operationId: 'getLead',
    method: 'GET',
    path: '/v1/leads/{lead_id}',
    scope: 'leads:read',
    entry: 'leads/get-lead.ts',
    summary: 'Read one Lead',
    tag: 'Leads',
  },
  {
    operationId: 'updateLead',
    method: 'PATCH',
    path: '/v1/leads/{lead_id}',
    scope: 'leads:write',
    entry: 'leads/update-lead.ts',
    summary: 'Edit a Lead: status (pipeline moves), notes, Owner',
    tag: 'Leads',
  },
  {
    operationId: 'archiveLead',
    method: 'DELETE',
    path: '/v1/leads/{lead_id}',
    scope: 'leads:write',
    entry: 'leads/archive-lead.ts',
    summary: 'Archive a Lead (is_active false)',
    tag: 'Leads',
  },
] as const satisfies readonly RouteDefinition[];
