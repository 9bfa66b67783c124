import { defineOperation } from '../../platform/operation.ts';
import { getPropertyFor } from '../../services/properties.ts';
import { ErrorOut } from '../shared/schemas.ts';
import { PropertyOut, PropertyPath, toPropertyOut } from './schemas.ts';

export const operation = defineOperation(
  'getProperty',
  {
    params: PropertyPath,
    responses: {
      200: { description: 'The listing (archived ones too)', schema: PropertyOut },
      404: { description: 'No listing with this id in this tenant', schema: ErrorOut },
    },
  },
  async ({ params, caller }) => ({ status: 200, body: toPropertyOut(await getPropertyFor(caller, params.property_id)) }),
);

export const handler = operation.handler;
