import { defineOperation } from '../../api/operation.ts';
import { ErrorOut, ValidationErrorOut } from '../../contract/shared.ts';
import { SiteListingBySlugOut, SiteQuery, SlugPath, toSiteListingOut } from '../../contract/site.ts';
import { agentsById, siteLanguage, siteListingBySlug } from '../../services/site.ts';

export const operation = defineOperation(
  'getSitePropertyBySlug',
  {
    params: SlugPath,
    query: SiteQuery,
    responses: {
      200: {
        description: 'The live listing; a retired slug finds it too, with is_canonical false',
        schema: SiteListingBySlugOut,
      },
      404: { description: 'No live listing has or had this slug', schema: ErrorOut },
      422: { description: 'A locale the site does not have', schema: ValidationErrorOut },
    },
  },
  async ({ params, query, caller }) => {
    const language = siteLanguage(caller.tenant, query.locale);
    const { catalogue, listing, isCanonical } = await siteListingBySlug(caller.tenant.tenantId, params.slug);
    return {
      status: 200,
      body: {
        ...toSiteListingOut(listing, language, agentsById(catalogue)),
        is_canonical: isCanonical,
        canonical_slug: listing.slug,
      },
    };
  },
);

export const handler = operation.handler;
