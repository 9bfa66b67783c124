import { Entity, type EntityItem } from 'electrodb';
import { asIs, entityConfig, SERVICE, timestamps } from './common.ts';

/**
 * A listing. Decimals (prices, bathrooms) are kept as normalised decimal strings so that no value
 * ever passes through a binary float. `status` is derived (see domain/property.ts) from
 * `archivedAt` and `placeCode`, so it cannot disagree with them.
 */
export const Property = new Entity(
  {
    model: { service: SERVICE, entity: 'property', version: '1' },
    attributes: {
      tenantId: { type: 'string', required: true, readOnly: true },
      id: { type: 'string', required: true, readOnly: true },
      title: { type: 'string', required: true },
      description: { type: 'string' },
      listingType: { type: ['sale', 'rent'] as const },
      price: { type: 'string' },
      currency: { type: 'string' },
      rentPrice: { type: 'string' },
      propertyType: { type: 'string' },
      bedrooms: { type: 'number' },
      bathrooms: { type: 'string' },
      placeCode: { type: 'string' },
      internalRef: { type: 'string' },
      slug: { type: 'string', required: true },
      origin: { type: ['api', 'import', 'console'] as const, required: true, readOnly: true },
      archivedAt: { type: 'string' },
      /** Name of the API key (or admin) that created / last wrote the listing. */
      createdBy: { type: 'string', required: true, readOnly: true },
      updatedBy: { type: 'string', required: true },
      ...timestamps,
    },
    indexes: {
      byId: {
        pk: { field: 'pk', composite: ['tenantId', 'id'], template: 't#${tenantId}#property#${id}', ...asIs },
        sk: { field: 'sk', composite: [], template: 'property', ...asIs },
      },
      byUpdated: {
        index: 'gsi1',
        pk: { field: 'gsi1pk', composite: ['tenantId'], template: 't#${tenantId}#properties', ...asIs },
        sk: { field: 'gsi1sk', composite: ['updatedAt', 'id'], template: '${updatedAt}#${id}', ...asIs },
      },
    },
  },
  entityConfig(),
);

export type PropertyItem = EntityItem<typeof Property>;
