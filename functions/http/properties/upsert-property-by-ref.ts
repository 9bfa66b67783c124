import {
  LanguageQuery,
  PropertyCreate,
  PropertyOut,
  PropertyRefPath,
  toPropertyOut,
} from '../../contract/properties.ts';
import { ValidationErrorOut } from '../../contract/shared.ts';
import { defineOperation } from '../../pipeline/operation.ts';
import { readListing, upsertListingByRef, writerOf } from '../../services/listings.ts';

export const operation = defineOperation(
  'upsertPropertyByRef',
  {
    params: PropertyRefPath,
    query: LanguageQuery,
    body: PropertyCreate,
    responses: {
      200: {
        description: 'A listing held this internal_ref: it was updated by PATCH rules',
        schema: PropertyOut,
      },
      201: { description: 'No listing held this internal_ref: one was created with it', schema: PropertyOut },
      422: {
        description: 'Validation failure, or internal_ref in the body differs from the path',
        schema: ValidationErrorOut,
      },
    },
  },
  async ({ params, query, body, caller }) => {
    const { record, language, created } = await upsertListingByRef(
      writerOf(caller),
      params.internal_ref,
      body,
      query.lang,
    );
    const { property, areas } = await readListing(caller.tenant.tenantId, record.id);
    return { status: created ? 201 : 200, body: toPropertyOut(property, { language, areas }) };
  },
);

export const handler = operation.handler;
