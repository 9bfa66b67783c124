import type { RouteDefinition } from '../../pipeline/route.ts';

/** Rows of the route table (functions/routes.ts) for this resource. */
export const leadCriteriaRoutes = [
  {
    operationId: 'getLeadCriteria',
    method: 'GET',
    path: '/v1/leads/{lead_id}/criteria',
    scope: 'leads:read',
    entry: 'lead-criteria/get-lead-criteria.ts',
    summary: "Read a Lead's search criteria, with its Places and Areas labelled",
    tag: 'Leads',
  },
  {
    operationId: 'putLeadCriteria',
    method: 'PUT',
    path: '/v1/leads/{lead_id}/criteria',
    scope: 'leads:write',
    entry: 'lead-criteria/put-lead-criteria.ts',
    summary: "Replace a Lead's whole search criteria (omitted fields are cleared); queues rescoring",
    tag: 'Leads',
  },
  {
    operationId: 'listLeadMatches',
    method: 'GET',
    path: '/v1/leads/{lead_id}/matches',
    scope: 'leads:read',
    entry: 'lead-criteria/list-lead-matches.ts',
    summary: 'Live listings meeting every criterion of the Lead, newest first (at most 50)',
    tag: 'Leads',
    uses: ['catalogueRead'],
  },
  {
    operationId: 'sendLeadMatches',
    method: 'POST',
    path: '/v1/leads/{lead_id}/matches:send',
    scope: 'leads:write',
    entry: 'lead-criteria/send-lead-matches.ts',
    summary: 'Email matching listings to the Lead and record when each was sent',
    tag: 'Leads',
    uses: ['email'],
  },
] as const satisfies readonly RouteDefinition[];
