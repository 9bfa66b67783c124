import { PropertyListQuery, PropertyOut, toPropertyOut } from '../../contract/properties.ts';
import { pageOf, ValidationErrorOut } from '../../contract/shared.ts';
import { defineOperation } from '../../pipeline/operation.ts';
import { listListings, resolveLanguage } from '../../services/listings.ts';

export const operation = defineOperation(
  'listProperties',
  {
    query: PropertyListQuery,
    responses: {
      200: {
        description:
          'A page of listings, least recently updated first, each with its Areas (as the single read)',
        schema: pageOf(PropertyOut),
      },
      422: { description: 'Invalid limit, cursor, updated_since or lang', schema: ValidationErrorOut },
    },
  },
  async ({ query, caller }) => {
    const language = resolveLanguage(caller.tenant, query.lang);
    return {
      status: 200,
      body: await listListings(caller.tenant.tenantId, query, (p, areas) =>
        toPropertyOut(p, { language, areas }),
      ),
    };
  },
);

export const handler = operation.handler;
