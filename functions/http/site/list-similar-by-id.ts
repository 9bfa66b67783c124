import { PropertyIdPath } from '../../contract/site.ts';
import { liveListing } from '../../services/site.ts';
import { similarListingsOperation } from './property-reads.ts';

export const operation = similarListingsOperation('listSimilarById', {
  params: PropertyIdPath,
  limit: 6,
  notFound: 'No live listing with this id',
  find: (tenantId, params) => liveListing(tenantId, params.property_id),
});

export const handler = operation.handler;
