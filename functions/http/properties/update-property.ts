import { defineOperation } from '../../platform/operation.ts';
import { updateProperty } from '../../services/properties.ts';
import { ErrorOut, ValidationErrorOut } from '../shared/schemas.ts';
import { PropertyOut, PropertyPath, PropertyUpdate, toPropertyOut } from './schemas.ts';

export const operation = defineOperation(
  'updateProperty',
  {
    params: PropertyPath,
    body: PropertyUpdate,
    responses: {
      200: { description: 'The edited listing', schema: PropertyOut },
      404: { description: 'No listing with this id in this tenant', schema: ErrorOut },
      409: { description: 'internal_ref is held by another listing', schema: ErrorOut },
      422: { description: 'Validation failure', schema: ValidationErrorOut },
    },
  },
  async ({ params, body, caller }) => ({
    status: 200,
    body: toPropertyOut(await updateProperty(caller, params.property_id, body)),
  }),
);

export const handler = operation.handler;
