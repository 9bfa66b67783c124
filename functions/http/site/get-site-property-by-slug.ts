import { SiteListingBySlugOut, SiteQuery, SlugPath } from '../../contract/site.ts';
import { defineOperation } from '../../pipeline/operation.ts';
import { siteLanguage, siteListingBySlug } from '../../services/site.ts';
import { siteListingPresenter, siteReadResponses } from './property-reads.ts';

export const operation = defineOperation(
  'getSitePropertyBySlug',
  {
    params: SlugPath,
    query: SiteQuery,
    responses: siteReadResponses(
      {
        description: 'The live listing; a retired slug finds it too, with is_canonical false',
        schema: SiteListingBySlugOut,
      },
      'No live listing has or had this slug',
    ),
  },
  async ({ params, query, caller }) => {
    const language = siteLanguage(caller.tenant, query.locale);
    const { catalogue, listing, isCanonical } = await siteListingBySlug(caller.tenant.tenantId, params.slug);
    return {
      status: 200,
      body: {
        ...siteListingPresenter(language, catalogue)(listing),
        is_canonical: isCanonical,
        canonical_slug: listing.slug,
      },
    };
  },
);

export const handler = operation.handler;
