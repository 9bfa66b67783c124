import { Entity } from 'electrodb';
import { LEAD_LISTING_ROLES, LEAD_LISTING_SOURCES } from '../../domain/activities.ts';
import { asIs, entityConfig, lazyEntity, SERVICE, timestamps } from './common.ts';

/**
 * A link between a Lead and a listing of the same Tenant (LeadPropertyOut on the wire). It lives
 * in the Lead's partition (sort key `leadProperty#<propertyId>`), so a Lead's links are one Query
 * and a listing is linked to a Lead at most once. The stored names (entity `leadProperty`, the sort
 * key, `propertyId`) keep the public word: renaming them would orphan the items already written.
 */
export const LeadListing = lazyEntity(
  () =>
    new Entity(
      {
        model: { service: SERVICE, entity: 'leadProperty', version: '1' },
        attributes: {
          tenantId: { type: 'string', required: true, readOnly: true },
          leadId: { type: 'string', required: true, readOnly: true },
          propertyId: { type: 'string', required: true, readOnly: true },
          role: { type: LEAD_LISTING_ROLES, required: true },
          /** How the link first came about; kept when the listing is linked again. */
          source: { type: LEAD_LISTING_SOURCES, required: true, readOnly: true },
          ...timestamps,
        },
        indexes: {
          byLead: {
            pk: {
              field: 'pk',
              composite: ['tenantId', 'leadId'],
              template: 't#${tenantId}#lead#${leadId}',
              ...asIs,
            },
            sk: {
              field: 'sk',
              composite: ['propertyId'],
              template: 'leadProperty#${propertyId}',
              ...asIs,
            },
          },
        },
      },
      entityConfig(),
    ),
);
