import type * as z from 'zod/mini';
import { ErrorOut, ValidationErrorOut } from '../../contract/shared.ts';
import { SiteListingList, type SiteListingOutput, SiteQuery, toSiteListingOut } from '../../contract/site.ts';
import type { ListingRecord } from '../../data/listings.ts';
import {
  defineOperation,
  type Operation,
  type OperationInput,
  type ResponseSpec,
} from '../../pipeline/operation.ts';
import type { OperationId } from '../../routes.ts';
import { agentsById, similarTo, siteLanguage } from '../../services/site.ts';
import type { Catalogue } from '../../services/site-catalogue.ts';

/**
 * The answers of a site read of one thing by its path: the 200 it gives, 404 when nothing has the
 * path (`notFound` says what), and 422 for a locale the site does not have.
 */
export function siteReadResponses(ok: ResponseSpec, notFound: string): Record<number, ResponseSpec> {
  return {
    200: ok,
    404: { description: notFound, schema: ErrorOut },
    422: { description: 'A locale the site does not have', schema: ValidationErrorOut },
  };
}

/** Presents listings of `catalogue` in the Site Language, each with its Agent's label. */
export function siteListingPresenter(
  language: string,
  catalogue: Catalogue,
): (listing: ListingRecord) => SiteListingOutput {
  const agents = agentsById(catalogue);
  return (listing) => toSiteListingOut(listing, language, agents);
}

/** How a similar-listings read finds the listing to compare with (by id or by slug). */
export interface SimilarListingsLookup<P extends z.ZodMiniType> {
  params: P;
  /** How many similar listings it answers at most (the published limit: 3 by slug, 6 by id). */
  limit: number;
  /** The 404's description: no live listing has the path. */
  notFound: string;
  find: (
    tenantId: string,
    params: OperationInput<P, typeof SiteQuery, undefined>['params'],
  ) => Promise<{ catalogue: Catalogue; listing: ListingRecord }>;
}

/**
 * A similar-listings read: the live listing the path names (404 without one), then
 * up to `limit` live listings like it, never itself. The by-id and by-slug reads differ only in the
 * lookup and the limit.
 */
export function similarListingsOperation<P extends z.ZodMiniType>(
  operationId: OperationId,
  lookup: SimilarListingsLookup<P>,
): Operation {
  return defineOperation(
    operationId,
    {
      params: lookup.params,
      query: SiteQuery,
      responses: siteReadResponses(
        {
          description: `Up to ${lookup.limit} live listings of the same listing type, nearest in place (most of the Place path shared), then in price, then newest; never the listing itself`,
          schema: SiteListingList,
        },
        lookup.notFound,
      ),
    },
    async ({ params, query, caller }) => {
      const language = siteLanguage(caller.tenant, query.locale);
      const { catalogue, listing } = await lookup.find(caller.tenant.tenantId, params);
      const items = similarTo(catalogue, listing, lookup.limit).map(
        siteListingPresenter(language, catalogue),
      );
      return { status: 200, body: { items, total: items.length } };
    },
  );
}
