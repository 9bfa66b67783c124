import {
  LeadPropertyCreate,
  LeadPropertyOut,
  LeadPropertyPath,
  toLeadPropertyOut,
} from '../../contract/lead-properties.ts';
import { ErrorOut, ValidationErrorOut } from '../../contract/shared.ts';
import { defineOperation } from '../../pipeline/operation.ts';
import { linkListingManually } from '../../services/lead-listings.ts';

export const operation = defineOperation(
  'linkLeadProperty',
  {
    params: LeadPropertyPath,
    body: LeadPropertyCreate,
    responses: {
      201: { description: 'The new link (source manual)', schema: LeadPropertyOut },
      200: {
        description:
          'The listing was already linked: the existing link, with its role changed to the one sent (source and created_at kept)',
        schema: LeadPropertyOut,
      },
      404: { description: 'No Lead with this id in this tenant', schema: ErrorOut },
      422: {
        description: 'Validation failure; property_id not a listing of this tenant',
        schema: ValidationErrorOut,
      },
    },
  },
  async ({ params, body, caller }) => {
    const linked = await linkListingManually(caller.tenant.tenantId, params.lead_id, body);
    return { status: linked.created ? 201 : 200, body: toLeadPropertyOut(linked) };
  },
);

export const handler = operation.handler;
