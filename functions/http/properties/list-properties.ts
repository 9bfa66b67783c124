import { defineOperation } from '../../api/operation.ts';
import { PropertyListQuery, PropertyOut, toPropertyOut } from '../../contract/properties.ts';
import { pageOf, ValidationErrorOut } from '../../contract/shared.ts';
import { listProperties, resolveLanguage } from '../../services/properties.ts';

export const operation = defineOperation(
  'listProperties',
  {
    query: PropertyListQuery,
    responses: {
      200: {
        description: 'A page of listings, least recently updated first (Areas are shown on the single read)',
        schema: pageOf(PropertyOut),
      },
      422: { description: 'Invalid limit, cursor, updated_since or lang', schema: ValidationErrorOut },
    },
  },
  async ({ query, caller }) => {
    const language = resolveLanguage(caller.tenant, query.lang);
    return {
      status: 200,
      body: await listProperties(caller.tenant.tenantId, query, (p) => toPropertyOut(p, { language })),
    };
  },
);

export const handler = operation.handler;
