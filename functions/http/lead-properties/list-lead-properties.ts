import { LeadPropertyList, LeadPropertyPath, toLeadPropertyOut } from '../../contract/lead-properties.ts';
import { ErrorOut, ValidationErrorOut } from '../../contract/shared.ts';
import { defineOperation } from '../../pipeline/operation.ts';
import { listLinkedListings } from '../../services/lead-listings.ts';

export const operation = defineOperation(
  'listLeadProperties',
  {
    params: LeadPropertyPath,
    responses: {
      200: {
        description: "The Lead's linked listings, oldest link first (one list)",
        schema: LeadPropertyList,
      },
      404: { description: 'No Lead with this id in this tenant', schema: ErrorOut },
      422: { description: 'lead_id is not a UUID', schema: ValidationErrorOut },
    },
  },
  async ({ params, caller }) => ({
    status: 200,
    body: { data: (await listLinkedListings(caller.tenant.tenantId, params.lead_id)).map(toLeadPropertyOut) },
  }),
);

export const handler = operation.handler;
