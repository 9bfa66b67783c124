import { PropertyPath } from '../../contract/properties.ts';
import { ErrorOut } from '../../contract/shared.ts';
import { defineOperation } from '../../pipeline/operation.ts';
import { archiveListing, writerOf } from '../../services/listings.ts';

export const operation = defineOperation(
  'archiveProperty',
  {
    params: PropertyPath,
    responses: {
      204: { description: 'Archived (or already archived); slug and price history are kept' },
      404: { description: 'No listing with this id in this tenant', schema: ErrorOut },
    },
  },
  async ({ params, caller }) => {
    await archiveListing(writerOf(caller), params.property_id);
    return { status: 204 };
  },
);

export const handler = operation.handler;
