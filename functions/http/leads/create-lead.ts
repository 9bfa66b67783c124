import { LeadCreateAnswer, LeadManualCreate, toLeadCreateReceipt, toLeadOut } from '../../contract/leads.ts';
import { ErrorOut, ValidationErrorOut } from '../../contract/shared.ts';
import { grants } from '../../domain/scopes.ts';
import { defineOperation } from '../../pipeline/operation.ts';
import { createLeadManually } from '../../services/leads.ts';

/**
 * A key without leads:read (leads:write grants writes alone) is answered with the id and what it
 * sent, never the stored Lead: a merge onto an existing Lead would otherwise read that Lead back.
 */
const WITHOUT_READ =
  'to a key without leads:read, only the Lead id and the fields the request sent (name, and email, phone, notes, assigned_agent_id when sent), never the stored Lead';

export const operation = defineOperation(
  'createLead',
  {
    body: LeadManualCreate,
    responses: {
      200: {
        description: `The email or phone belongs to an existing Lead: the contact was merged onto it. The existing Lead, to a key holding leads:read; ${WITHOUT_READ}`,
        schema: LeadCreateAnswer,
      },
      201: {
        description: `The new Lead (source manual), to a key holding leads:read; ${WITHOUT_READ}`,
        schema: LeadCreateAnswer,
      },
      409: { description: 'The Idempotency-Key is in use', schema: ErrorOut },
      422: {
        description:
          'Validation failure; an unknown or inactive assigned_agent_id; a phone that is not a number',
        schema: ValidationErrorOut,
      },
    },
  },
  async ({ body, caller }) => {
    const { lead, created } = await createLeadManually(caller, body);
    const readsLeads = grants(caller.apiKey.scopes, 'leads:read');
    return {
      status: created ? 201 : 200,
      body: readsLeads ? toLeadOut(lead) : toLeadCreateReceipt(lead.id, body),
    };
  },
);

export const handler = operation.handler;
