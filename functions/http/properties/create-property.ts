import { LanguageQuery, PropertyCreate, PropertyOut, toPropertyOut } from '../../contract/properties.ts';
import { ErrorOut, ValidationErrorOut } from '../../contract/shared.ts';
import { defineOperation } from '../../pipeline/operation.ts';
import { createListing, readListing, writerOf } from '../../services/listings.ts';

export const operation = defineOperation(
  'createProperty',
  {
    query: LanguageQuery,
    body: PropertyCreate,
    responses: {
      201: { description: 'The new listing, in the language it was written in', schema: PropertyOut },
      409: {
        description: 'internal_ref is held by another listing, or the Idempotency-Key is in use',
        schema: ErrorOut,
      },
      422: {
        description:
          'Validation failure; both agent_id and agent_email, an unknown Agent or place_code, a language not enabled',
        schema: ValidationErrorOut,
      },
    },
  },
  async ({ query, body, caller, ids }) => {
    const { record, language } = await createListing(writerOf(caller), body, query.lang, undefined, ids);
    // A placed listing may have joined Areas by rule on create: show them like a read does.
    const { property, areas } = record.placeCode
      ? await readListing(caller.tenant.tenantId, record.id)
      : { property: record, areas: [] };
    return { status: 201, body: toPropertyOut(property, { language, areas }) };
  },
);

export const handler = operation.handler;
