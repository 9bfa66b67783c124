import {
  LanguageQuery,
  PropertyOut,
  PropertyPath,
  PropertyUpdate,
  toPropertyOut,
} from '../../contract/properties.ts';
import { ErrorOut, ValidationErrorOut } from '../../contract/shared.ts';
import { defineOperation } from '../../pipeline/operation.ts';
import { editListing, readListing, writerOf } from '../../services/listings.ts';

export const operation = defineOperation(
  'updateProperty',
  {
    params: PropertyPath,
    query: LanguageQuery,
    body: PropertyUpdate,
    responses: {
      200: { description: 'The edited listing, in the language it was written in', schema: PropertyOut },
      404: { description: 'No listing with this id in this tenant', schema: ErrorOut },
      409: { description: 'internal_ref is held by another listing', schema: ErrorOut },
      422: { description: 'Validation failure', schema: ValidationErrorOut },
    },
  },
  async ({ params, query, body, caller }) => {
    const { language } = await editListing(writerOf(caller), params.property_id, body, query.lang);
    const { property, areas } = await readListing(caller.tenant.tenantId, params.property_id);
    return { status: 200, body: toPropertyOut(property, { language, areas }) };
  },
);

export const handler = operation.handler;
