import { PropertyIdPath, SiteListingByIdOut, SiteQuery } from '../../contract/site.ts';
import { defineOperation } from '../../pipeline/operation.ts';
import { siteLanguage, siteListingById } from '../../services/site.ts';
import { siteListingPresenter, siteReadResponses } from './property-reads.ts';

export const operation = defineOperation(
  'getSitePropertyById',
  {
    params: PropertyIdPath,
    query: SiteQuery,
    responses: siteReadResponses(
      {
        description: '`{available: true, …listing}` while live; `{id, available: false}` once off the market',
        schema: SiteListingByIdOut,
      },
      'No listing with this id',
    ),
  },
  async ({ params, query, caller }) => {
    const language = siteLanguage(caller.tenant, query.locale);
    const { catalogue, listing } = await siteListingById(caller.tenant.tenantId, params.property_id);
    if (!listing) return { status: 200, body: { id: params.property_id, available: false } };
    return { status: 200, body: { available: true, ...siteListingPresenter(language, catalogue)(listing) } };
  },
);

export const handler = operation.handler;
