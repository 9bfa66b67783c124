import { defineOperation } from '../../api/operation.ts';
import { ErrorOut, ValidationErrorOut } from '../../contract/shared.ts';
import { PropertyIdPath, SiteListingByIdOut, SiteQuery, toSiteListingOut } from '../../contract/site.ts';
import { agentsById, siteLanguage, siteListingById } from '../../services/site.ts';

export const operation = defineOperation(
  'getSitePropertyById',
  {
    params: PropertyIdPath,
    query: SiteQuery,
    responses: {
      200: {
        description: '`{available: true, …listing}` while live; `{id, available: false}` once off the market',
        schema: SiteListingByIdOut,
      },
      404: { description: 'No listing with this id', schema: ErrorOut },
      422: { description: 'A locale the site does not have', schema: ValidationErrorOut },
    },
  },
  async ({ params, query, caller }) => {
    const language = siteLanguage(caller.tenant, query.locale);
    const { catalogue, listing } = await siteListingById(caller.tenant.tenantId, params.property_id);
    if (!listing) return { status: 200, body: { id: params.property_id, available: false } };
    return {
      status: 200,
      body: { available: true, ...toSiteListingOut(listing, language, agentsById(catalogue)) },
    };
  },
);

export const handler = operation.handler;
