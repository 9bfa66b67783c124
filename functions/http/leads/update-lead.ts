import {
  LeadPath,
  LeadUpdate,
  LeadUpdateAnswer,
  toLeadOut,
  toLeadUpdateReceipt,
} from '../../contract/leads.ts';
import { ErrorOut, ValidationErrorOut } from '../../contract/shared.ts';
import { grants } from '../../domain/scopes.ts';
import { defineOperation } from '../../pipeline/operation.ts';
import { editLead } from '../../services/leads.ts';

export const operation = defineOperation(
  'updateLead',
  {
    params: LeadPath,
    body: LeadUpdate,
    responses: {
      200: {
        description:
          'The edited Lead, to a key holding leads:read; to a key without it (leads:write grants writes alone), only the Lead id and the fields the request sent (status, notes, assigned_agent_id, each when sent), never the stored Lead',
        schema: LeadUpdateAnswer,
      },
      404: { description: 'No Lead with this id in this tenant', schema: ErrorOut },
      409: { description: 'The Lead kept changing while it was written; retry', schema: ErrorOut },
      422: {
        description:
          'Validation failure, an empty body included (at ["body"]: send at least one field); a status move the pipeline does not allow (the detail names the allowed moves to a key holding leads:read); an unknown or inactive Agent',
        schema: ValidationErrorOut,
      },
    },
  },
  async ({ params, body, caller }) => {
    const readsLeads = grants(caller.apiKey.scopes, 'leads:read');
    const lead = await editLead(caller.tenant.tenantId, params.lead_id, body, { showStatus: readsLeads });
    return { status: 200, body: readsLeads ? toLeadOut(lead) : toLeadUpdateReceipt(lead.id, body) };
  },
);

export const handler = operation.handler;
