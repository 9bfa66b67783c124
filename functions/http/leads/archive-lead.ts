import { defineOperation } from '../../platform/operation.ts';
import { archiveLead } from '../../services/leads.ts';
import { ErrorOut, ValidationErrorOut } from '../shared/schemas.ts';
import { LeadPath } from './schemas.ts';

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
