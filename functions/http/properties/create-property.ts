import { defineOperation } from '../../platform/operation.ts';
import { createProperty } from '../../services/properties.ts';
import { ErrorOut, ValidationErrorOut } from '../shared/schemas.ts';
import { PropertyCreate, PropertyOut, toPropertyOut } from './schemas.ts';

export const operation = defineOperation(
  'createProperty',
  {
    body: PropertyCreate,
    responses: {
      201: { description: 'The new listing', schema: PropertyOut },
      409: { description: 'internal_ref is held by another listing, or the Idempotency-Key is in use', schema: ErrorOut },
      422: { description: 'Validation failure', schema: ValidationErrorOut },
    },
  },
  async ({ body, caller }) => ({ status: 201, body: toPropertyOut(await createProperty(caller, body)) }),
);

export const handler = operation.handler;
