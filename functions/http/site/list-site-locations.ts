import { ValidationErrorOut } from '../../contract/shared.ts';
import { SiteLocationList, SiteQuery, toSiteLocationOut } from '../../contract/site.ts';
import { defineOperation } from '../../pipeline/operation.ts';
import { siteLanguage, siteLocations } from '../../services/site.ts';

export const operation = defineOperation(
  'listSiteLocations',
  {
    query: SiteQuery,
    responses: {
      200: {
        description: 'Areas, then Places, then property types that have live listings, each with its count',
        schema: SiteLocationList,
      },
      422: { description: 'A locale the site does not have', schema: ValidationErrorOut },
    },
  },
  async ({ query, caller }) => {
    siteLanguage(caller.tenant, query.locale);
    const items = (await siteLocations(caller.tenant.tenantId)).map(toSiteLocationOut);
    return { status: 200, body: { items, total: items.length } };
  },
);

export const handler = operation.handler;
