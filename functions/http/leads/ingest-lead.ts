import { LeadIngestIn, LeadIngestOut, toLeadOut } from '../../contract/leads.ts';
import { ErrorOut, ValidationErrorOut } from '../../contract/shared.ts';
import { defineOperation } from '../../pipeline/operation.ts';
import { ingestLeadEvent } from '../../services/lead-ingest/ingest-lead-event.ts';

export const operation = defineOperation(
  'ingestLead',
  {
    body: LeadIngestIn,
    responses: {
      200: { description: 'The contact matched an existing Lead, which was updated', schema: LeadIngestOut },
      201: { description: 'A Lead was created', schema: LeadIngestOut },
      409: { description: 'The Idempotency-Key is in use', schema: ErrorOut },
      422: {
        description:
          'Validation failure; a person with neither email nor phone; both agent_id and agent_email',
        schema: ValidationErrorOut,
      },
    },
  },
  async ({ body, caller, ids }) => {
    const result = await ingestLeadEvent(caller, body, ids);
    return {
      status: result.created ? 201 : 200,
      body: {
        lead: toLeadOut(result.lead),
        inquiry_id: result.inquiryId,
        activity_id: result.activityId,
        warnings: result.warnings,
      },
    };
  },
);

export const handler = operation.handler;
