import { LeadPath } from '../../contract/leads.ts';
import { ErrorOut, ValidationErrorOut } from '../../contract/shared.ts';
import { defineOperation } from '../../pipeline/operation.ts';
import { archiveLead } from '../../services/leads.ts';

export const operation = defineOperation(
  'archiveLead',
  {
    params: LeadPath,
    responses: {
      204: { description: 'Archived (is_active false), or already archived' },
      404: { description: 'No Lead with this id in this tenant', schema: ErrorOut },
      422: { description: 'lead_id is not a UUID', schema: ValidationErrorOut },
    },
  },
  async ({ params, caller }) => {
    await archiveLead(caller.tenant.tenantId, params.lead_id);
    return { status: 204 };
  },
);

export const handler = operation.handler;
