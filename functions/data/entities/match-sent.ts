import { Entity } from 'electrodb';
import { asIs, entityConfig, lazyEntity, SERVICE } from './common.ts';

/**
 * When a listing was last emailed to a Lead as a match (POST /v1/leads/{lead_id}/matches:send).
 * One item per (Lead, listing) in the Lead's partition, so one Query reads every send of a Lead;
 * a later send of the same listing overwrites sentAt.
 */
export const MatchSent = lazyEntity(
  () =>
    new Entity(
      {
        model: { service: SERVICE, entity: 'matchSent', version: '1' },
        attributes: {
          tenantId: { type: 'string', required: true, readOnly: true },
          leadId: { type: 'string', required: true, readOnly: true },
          propertyId: { type: 'string', required: true, readOnly: true },
          sentAt: { type: 'string', required: true },
        },
        indexes: {
          byLead: {
            pk: {
              field: 'pk',
              composite: ['tenantId', 'leadId'],
              template: 't#${tenantId}#lead#${leadId}',
              ...asIs,
            },
            sk: { field: 'sk', composite: ['propertyId'], template: 'matchSent#${propertyId}', ...asIs },
          },
        },
      },
      entityConfig(),
    ),
);
