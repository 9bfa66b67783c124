import { SlugPath } from '../../contract/site.ts';
import { siteListingBySlug } from '../../services/site.ts';
import { similarListingsOperation } from './property-reads.ts';

export const operation = similarListingsOperation('listSimilarBySlug', {
  params: SlugPath,
  limit: 3,
  notFound: 'No live listing has or had this slug',
  find: (tenantId, params) => siteListingBySlug(tenantId, params.slug),
});

export const handler = operation.handler;
