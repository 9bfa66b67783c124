import { defineOperation } from '../../api/operation.ts';
import { ErrorOut, ValidationErrorOut } from '../../contract/shared.ts';
import { PropertyIdPath, SiteListingList, SiteQuery, toSiteListingOut } from '../../contract/site.ts';
import { agentsById, liveListing, similarTo, siteLanguage } from '../../services/site.ts';

/** Interface §8: up to 6 similar listings by id. */
const SIMILAR_BY_ID = 6;

export const operation = defineOperation(
  'listSimilarById',
  {
    params: PropertyIdPath,
    query: SiteQuery,
    responses: {
      200: {
        description:
          'Up to 6 live listings of the same listing type, nearest in place (most of the Place path shared), then in price, then newest; never the listing itself',
        schema: SiteListingList,
      },
      404: { description: 'No live listing with this id', schema: ErrorOut },
      422: { description: 'A locale the site does not have', schema: ValidationErrorOut },
    },
  },
  async ({ params, query, caller }) => {
    const language = siteLanguage(caller.tenant, query.locale);
    const { catalogue, listing } = await liveListing(caller.tenant.tenantId, params.property_id);
    const agents = agentsById(catalogue);
    const items = similarTo(catalogue, listing, SIMILAR_BY_ID).map((p) =>
      toSiteListingOut(p, language, agents),
    );
    return { status: 200, body: { items, total: items.length } };
  },
);

export const handler = operation.handler;
