import { defineOperation } from '../../api/operation.ts';
import { ErrorOut, ValidationErrorOut } from '../../contract/shared.ts';
import { SiteListingList, SiteQuery, SlugPath, toSiteListingOut } from '../../contract/site.ts';
import { agentsById, similarTo, siteLanguage, siteListingBySlug } from '../../services/site.ts';

/** Interface §8: up to 3 similar listings by slug. */
const SIMILAR_BY_SLUG = 3;

export const operation = defineOperation(
  'listSimilarBySlug',
  {
    params: SlugPath,
    query: SiteQuery,
    responses: {
      200: {
        description:
          'Up to 3 live listings of the same listing type, nearest in place (most of the Place path shared), then in price, then newest; never the listing itself',
        schema: SiteListingList,
      },
      404: { description: 'No live listing has or had this slug', schema: ErrorOut },
      422: { description: 'A locale the site does not have', schema: ValidationErrorOut },
    },
  },
  async ({ params, query, caller }) => {
    const language = siteLanguage(caller.tenant, query.locale);
    const { catalogue, listing } = await siteListingBySlug(caller.tenant.tenantId, params.slug);
    const agents = agentsById(catalogue);
    const items = similarTo(catalogue, listing, SIMILAR_BY_SLUG).map((p) =>
      toSiteListingOut(p, language, agents),
    );
    return { status: 200, body: { items, total: items.length } };
  },
);

export const handler = operation.handler;
