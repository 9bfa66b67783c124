import { Entity } from 'electrodb';
import { asIs, entityConfig, lazyEntity, ownPartition, SERVICE, timestamps, updatedOrder } from './common.ts';

/**
 * An Inquiry: a Lead got in touch (an ingested inquiry or registration, later the website's form).
 * Indexes:
 * - byId: the Inquiry's own partition (GET /v1/inquiries/{inquiry_id});
 * - gsi1: every Inquiry of a Tenant by (updatedAt, id) (GET /v1/inquiries);
 * - gsi2: a Lead's Inquiries by (updatedAt, id) (`lead_id` filter; the scorer reads them);
 * - gsi3: a listing's Inquiries by (updatedAt, id) (`property_id` filter). `propertyKey` is the
 *   property id, or `none` for a general inquiry, so the index is always complete.
 */
export const Inquiry = lazyEntity(
  () =>
    new Entity(
      {
        model: { service: SERVICE, entity: 'inquiry', version: '1' },
        attributes: {
          tenantId: { type: 'string', required: true, readOnly: true },
          id: { type: 'string', required: true, readOnly: true },
          leadId: { type: 'string', required: true, readOnly: true },
          propertyId: { type: 'string' },
          /** gsi3's value: propertyId, or `none`. Kept in step with propertyId by the writers. */
          propertyKey: { type: 'string', required: true, default: 'none' },
          channel: { type: ['form', 'concierge'] as const, required: true },
          /** widget: sent from the agency's website through the site API (POST /v1/site/leads). */
          via: { type: ['widget'] as const },
          /** The website page the form was sent from (the request's Referer). */
          pageUrl: { type: 'string' },
          /** The ingest event type that recorded it. */
          type: { type: ['inquiry', 'registration'] as const, required: true },
          message: { type: 'string' },
          /** Free-text attribution (the ingest `source`, `campaign`). */
          source: { type: 'string' },
          campaign: { type: 'string' },
          occurredAt: { type: 'string', required: true },
          ...timestamps,
        },
        indexes: {
          byId: ownPartition('inquiry'),
          byUpdated: updatedOrder('gsi1', 'inquiries'),
          byLead: {
            index: 'gsi2',
            pk: {
              field: 'gsi2pk',
              composite: ['tenantId', 'leadId'],
              template: 't#${tenantId}#lead#${leadId}#inquiries',
              ...asIs,
            },
            sk: { field: 'gsi2sk', composite: ['updatedAt', 'id'], template: '${updatedAt}#${id}', ...asIs },
          },
          byListing: {
            index: 'gsi3',
            pk: {
              field: 'gsi3pk',
              composite: ['tenantId', 'propertyKey'],
              template: 't#${tenantId}#property#${propertyKey}#inquiries',
              ...asIs,
            },
            sk: { field: 'gsi3sk', composite: ['updatedAt', 'id'], template: '${updatedAt}#${id}', ...asIs },
          },
        },
      },
      entityConfig(),
    ),
);
