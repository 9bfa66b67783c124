import { ErrorOut } from '../../contract/shared.ts';
import { SiteQuery, SlugPath } from '../../contract/site.ts';
import { defineOperation } from '../../pipeline/operation.ts';
import { countSiteView } from '../../services/site-writes.ts';

export const operation = defineOperation(
  'countSitePropertyView',
  {
    params: SlugPath,
    query: SiteQuery,
    responses: {
      204: { description: 'Counted (views from one visitor within a minute count once)' },
      404: { description: 'No live listing has or had this slug', schema: ErrorOut },
    },
  },
  async ({ params, caller, site }) => {
    await countSiteView(caller.tenant.tenantId, params.slug, site?.visitor ?? 'unknown');
    return { status: 204 };
  },
);

export const handler = operation.handler;
