import { LeadMatchList, LeadPath, toLeadMatchOut } from '../../contract/lead-criteria.ts';
import { ErrorOut, ValidationErrorOut } from '../../contract/shared.ts';
import { defineOperation } from '../../pipeline/operation.ts';
import { listLeadMatches } from '../../services/matches.ts';

export const operation = defineOperation(
  'listLeadMatches',
  {
    params: LeadPath,
    responses: {
      200: {
        description:
          'Live listings meeting every criterion, newest first, at most 50; empty without criteria',
        schema: LeadMatchList,
      },
      404: { description: 'No lead with this id in this tenant', schema: ErrorOut },
      422: { description: 'lead_id is not a UUID', schema: ValidationErrorOut },
    },
  },
  async ({ params, caller }) => {
    const matches = await listLeadMatches(caller.tenant.tenantId, params.lead_id);
    return {
      status: 200,
      body: { data: matches.map((m) => toLeadMatchOut(m.listing, m.reasons, m.sentAt)) },
    };
  },
);

export const handler = operation.handler;
