import { LanguageQuery, PropertyOut, PropertyPath, toPropertyOut } from '../../contract/properties.ts';
import { ErrorOut, ValidationErrorOut } from '../../contract/shared.ts';
import { defineOperation } from '../../pipeline/operation.ts';
import { readListing, resolveLanguage } from '../../services/listings.ts';

export const operation = defineOperation(
  'getProperty',
  {
    params: PropertyPath,
    query: LanguageQuery,
    responses: {
      200: { description: 'The listing (archived ones too), with its Areas', schema: PropertyOut },
      404: { description: 'No listing with this id in this tenant', schema: ErrorOut },
      422: { description: 'A language the tenant has not enabled', schema: ValidationErrorOut },
    },
  },
  async ({ params, query, caller }) => {
    const language = resolveLanguage(caller.tenant, query.lang);
    const { property, areas } = await readListing(caller.tenant.tenantId, params.property_id);
    return { status: 200, body: toPropertyOut(property, { language, areas }) };
  },
);

export const handler = operation.handler;
