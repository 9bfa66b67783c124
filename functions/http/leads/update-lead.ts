import { defineOperation } from '../../api/operation.ts';
import { LeadOut, LeadPath, LeadUpdate, toLeadOut } from '../../contract/leads.ts';
import { ErrorOut, ValidationErrorOut } from '../../contract/shared.ts';
import { editLead } from '../../services/leads.ts';

export const operation = defineOperation(
  'updateLead',
  {
    params: LeadPath,
    body: LeadUpdate,
    responses: {
      200: { description: 'The edited Lead', schema: LeadOut },
      404: { description: 'No Lead with this id in this tenant', schema: ErrorOut },
      409: { description: 'The Lead kept changing while it was written; retry', schema: ErrorOut },
      422: {
        description:
          'Validation failure; a status move the pipeline does not allow (the detail names the allowed moves); an unknown or inactive Agent',
        schema: ValidationErrorOut,
      },
    },
  },
  async ({ params, body, caller }) => ({
    status: 200,
    body: toLeadOut(await editLead(caller.tenant.tenantId, params.lead_id, body)),
  }),
);

export const handler = operation.handler;
