import { Entity } from 'electrodb';
import { asIs, entityConfig, lazyEntity, SERVICE } from './common.ts';

/**
 * One item per (Lead, search prefix): the index behind `GET /v1/leads?q=`. A Lead's words (name,
 * email, phone, notes; lowercased, accents folded) are filed under their 2- and 3-letter prefixes,
 * in the partition `t#<tenant>#lead-q#<prefix>`, ordered like the list by (updatedAt, leadId).
 *
 * Each item carries the Lead's words as `text` (" word word…", so `contains(text, " <query word>")`
 * is a word-prefix match) and the filter attributes, plus a copy of the Lead itself (`lead`) so a
 * search page needs no second read. Written and removed in the same transaction as the Lead
 * (functions/data/leads.ts), so they never disagree with it.
 */
export const LeadSearchToken = lazyEntity(
  () =>
    new Entity(
      {
        model: { service: SERVICE, entity: 'leadSearchToken', version: '1' },
        attributes: {
          tenantId: { type: 'string', required: true, readOnly: true },
          prefix: { type: 'string', required: true, readOnly: true },
          leadId: { type: 'string', required: true, readOnly: true },
          updatedAt: { type: 'string', required: true, readOnly: true },
          text: { type: 'string', required: true },
          status: { type: 'string', required: true },
          ownerKey: { type: 'string', required: true },
          tierKey: { type: 'string', required: true },
          isActive: { type: 'boolean', required: true },
          /** The Lead's attributes (notes left out when long: `complete` is then false). */
          lead: { type: 'any', required: true },
          complete: { type: 'boolean', required: true },
        },
        indexes: {
          byPrefix: {
            pk: {
              field: 'pk',
              composite: ['tenantId', 'prefix'],
              template: 't#${tenantId}#lead-q#${prefix}',
              ...asIs,
            },
            sk: {
              field: 'sk',
              composite: ['updatedAt', 'leadId'],
              template: '${updatedAt}#${leadId}',
              ...asIs,
            },
          },
        },
      },
      entityConfig(),
    ),
);
