import { SiteLocationOut, SiteQuery, SlugPath, toSiteLocationOut } from '../../contract/site.ts';
import { NotFoundError } from '../../kernel/errors.ts';
import { defineOperation } from '../../pipeline/operation.ts';
import { siteLanguage, siteLocations } from '../../services/site.ts';
import { siteReadResponses } from './property-reads.ts';

export const operation = defineOperation(
  'getSiteLocation',
  {
    params: SlugPath,
    query: SiteQuery,
    responses: siteReadResponses(
      { description: 'The location with its count of live listings', schema: SiteLocationOut },
      'No location with live listings has this slug',
    ),
  },
  async ({ params, query, caller }) => {
    siteLanguage(caller.tenant, query.locale);
    const location = (await siteLocations(caller.tenant.tenantId)).find((l) => l.slug === params.slug);
    if (!location) throw new NotFoundError('No location with this slug');
    return { status: 200, body: toSiteLocationOut(location) };
  },
);

export const handler = operation.handler;
