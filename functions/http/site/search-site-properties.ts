import { ValidationErrorOut } from '../../contract/shared.ts';
import { SiteListingPage, SiteSearchQuery } from '../../contract/site.ts';
import { defineOperation } from '../../pipeline/operation.ts';
import { searchSite, siteLanguage } from '../../services/site.ts';
import { siteListingPresenter } from './property-reads.ts';

export const operation = defineOperation(
  'searchSiteProperties',
  {
    query: SiteSearchQuery,
    responses: {
      200: { description: 'A page of live listings and how many match in all', schema: SiteListingPage },
      422: {
        description:
          'A bad filter: limit, offset, price range, sort, amenity, or a locale the site does not have',
        schema: ValidationErrorOut,
      },
    },
  },
  async ({ query, caller }) => {
    const language = siteLanguage(caller.tenant, query.locale);
    const { key: _key, origin: _origin, locale: _locale, ...search } = query;
    const { catalogue, items, total } = await searchSite(caller.tenant.tenantId, search);
    return { status: 200, body: { items: items.map(siteListingPresenter(language, catalogue)), total } };
  },
);

export const handler = operation.handler;
