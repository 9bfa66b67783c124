import { Entity } from 'electrodb';
import { asIs, entityConfig, lazyEntity, SERVICE } from './common.ts';

/**
 * A Lead's search criteria (LeadCriteriaIn): one item in the Lead's partition
 * (sort key `criteria`), replaced whole by each PUT. No item means never saved (updated_at null).
 * Decimals are normalised decimal strings; empty lists mean "not set".
 */
export const LeadCriteria = lazyEntity(
  () =>
    new Entity(
      {
        model: { service: SERVICE, entity: 'leadCriteria', version: '1' },
        attributes: {
          tenantId: { type: 'string', required: true, readOnly: true },
          leadId: { type: 'string', required: true, readOnly: true },
          listingType: { type: ['sale', 'rent'] as const },
          minPrice: { type: 'string' },
          maxPrice: { type: 'string' },
          currency: { type: 'string' },
          minBeds: { type: 'number' },
          minBaths: { type: 'string' },
          propertyTypes: { type: 'list', items: { type: 'string' }, required: true, default: () => [] },
          amenities: { type: 'list', items: { type: 'string' }, required: true, default: () => [] },
          placeCodes: { type: 'list', items: { type: 'string' }, required: true, default: () => [] },
          areaIds: { type: 'list', items: { type: 'string' }, required: true, default: () => [] },
          notes: { type: 'string' },
          updatedAt: { type: 'string', required: true },
        },
        indexes: {
          byLead: {
            pk: {
              field: 'pk',
              composite: ['tenantId', 'leadId'],
              template: 't#${tenantId}#lead#${leadId}',
              ...asIs,
            },
            sk: { field: 'sk', composite: [], template: 'criteria', ...asIs },
          },
        },
      },
      entityConfig(),
    ),
);
