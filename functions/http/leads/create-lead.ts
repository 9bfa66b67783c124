import { defineOperation } from '../../api/operation.ts';
import { LeadManualCreate, LeadOut, toLeadOut } from '../../contract/leads.ts';
import { ErrorOut, ValidationErrorOut } from '../../contract/shared.ts';
import { createLeadManually } from '../../services/leads.ts';

export const operation = defineOperation(
  'createLead',
  {
    body: LeadManualCreate,
    responses: {
      200: {
        description: 'The email or phone belongs to an existing Lead: the contact was merged onto it',
        schema: LeadOut,
      },
      201: { description: 'The new Lead (source manual)', schema: LeadOut },
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
    return { status: created ? 201 : 200, body: toLeadOut(lead) };
  },
);

export const handler = operation.handler;
