import { LeadListQuery, LeadOut, toLeadOut } from '../../contract/leads.ts';
import { pageOf, ValidationErrorOut } from '../../contract/shared.ts';
import { defineOperation } from '../../pipeline/operation.ts';
import { listLeads } from '../../services/leads.ts';

export const operation = defineOperation(
  'listLeads',
  {
    query: LeadListQuery,
    responses: {
      200: {
        description:
          'A page of Leads, least recently updated first; archived ones only with include_archived=true',
        schema: pageOf(LeadOut),
      },
      422: {
        description:
          'Invalid limit, cursor (edited, or from other filters), updated_since, status, tier, owner or q',
        schema: ValidationErrorOut,
      },
    },
  },
  async ({ query, caller }) => ({
    status: 200,
    body: await listLeads(caller.tenant, query, toLeadOut),
  }),
);

export const handler = operation.handler;
