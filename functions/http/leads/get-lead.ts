import { LeadOut, LeadPath, toLeadOut } from '../../contract/leads.ts';
import { ErrorOut, ValidationErrorOut } from '../../contract/shared.ts';
import { defineOperation } from '../../pipeline/operation.ts';
import { readLead } from '../../services/leads.ts';

export const operation = defineOperation(
  'getLead',
  {
    params: LeadPath,
    responses: {
      200: { description: 'The Lead (archived ones too)', schema: LeadOut },
      404: { description: 'No Lead with this id in this tenant', schema: ErrorOut },
      422: { description: 'lead_id is not a UUID', schema: ValidationErrorOut },
    },
  },
  async ({ params, caller }) => ({
    status: 200,
    body: toLeadOut(await readLead(caller.tenant.tenantId, params.lead_id)),
  }),
);

export const handler = operation.handler;
