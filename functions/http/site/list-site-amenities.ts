import { ValidationErrorOut } from '../../contract/shared.ts';
import { amenityList, SiteAmenityList, SiteQuery } from '../../contract/site.ts';
import { defineOperation } from '../../pipeline/operation.ts';
import { siteLanguage } from '../../services/site.ts';

export const operation = defineOperation(
  'listSiteAmenities',
  {
    query: SiteQuery,
    responses: {
      200: { description: 'Every amenity code with its label in locale', schema: SiteAmenityList },
      422: { description: 'A locale the site does not have', schema: ValidationErrorOut },
    },
  },
  async ({ query, caller }) => ({
    status: 200,
    body: amenityList(siteLanguage(caller.tenant, query.locale)),
  }),
);

export const handler = operation.handler;
