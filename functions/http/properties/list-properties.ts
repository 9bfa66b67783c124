import { defineOperation } from '../../platform/operation.ts';
import { listProperties } from '../../services/properties.ts';
import { pageOf, ValidationErrorOut } from '../shared/schemas.ts';
import { PropertyListQuery, PropertyOut, toPropertyOut } from './schemas.ts';

export const operation = defineOperation(
  'listProperties',
  {
    query: PropertyListQuery,
    responses: {
      200: { description: 'A page of listings, least recently updated first', schema: pageOf(PropertyOut) },
      422: { description: 'Invalid limit, cursor or updated_since', schema: ValidationErrorOut },
    },
  },
  async ({ query, caller }) => ({ status: 200, body: await listProperties(caller, query, toPropertyOut) }),
);

export const handler = operation.handler;
