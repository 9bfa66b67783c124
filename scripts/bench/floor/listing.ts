import { Entity } from 'electrodb';

/**
 * The floor's one ElectroDB entity: a small listing on the service's table key layout (`pk`/`sk`).
 * Shared by the floor handler and the bench, which seeds the item the handler reads.
 */
export function floorListing(options: { table: string; client?: unknown }) {
  return new Entity(
    {
      model: { service: 'bench', entity: 'floorListing', version: '1' },
      attributes: {
        id: { type: 'string', required: true },
        title: { type: 'string', required: true },
        price: { type: 'string' },
        updatedAt: { type: 'string', required: true },
      },
      indexes: {
        byId: {
          // ElectroDB's own key format: nothing in the service's key space starts with `$bench`.
          pk: { field: 'pk', composite: ['id'] },
          sk: { field: 'sk', composite: [] },
        },
      },
    },
    // ElectroDB types its client loosely as well; the handler passes a DynamoDBDocumentClient.
    { table: options.table, ...(options.client ? { client: options.client as never } : {}) },
  );
}
