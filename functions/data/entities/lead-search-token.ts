import { Entity } from 'electrodb';
import { asIs, entityConfig, lazyEntity, SERVICE } from './common.ts';
import { LEAD_LISTS } from './lead.ts';

/**
 * One item per (Lead, search prefix): the index behind `GET /v1/leads?q=`. A Lead's words (name,
 * email, phone, notes; lowercased, accents folded) are filed under their 3-, 4- and 6-letter
 * prefixes (digit words under 6 digits only: a country code and 3 digits at least), in the
 * partition `t#<tenant>#<list>-q#<prefix>` (`leads-q` for live Leads, `archived-leads-q` for
 * archived ones), ordered by the Lead's creation (createdAt, leadId).
 *
 * A token holds keys and the words it is matched on (`text`, " word word…", so
 * `contains(text, " <query word>")` is a word-prefix match), nothing the Lead changes more often:
 * a status, score or owner change rewrites no token, and a search page reads the Leads it hits.
 * Written and removed in the same transaction as the Lead (functions/data/leads.ts).
 */
export const LeadSearchToken = lazyEntity(
  () =>
    new Entity(
      {
        model: { service: SERVICE, entity: 'leadSearchToken', version: '2' },
        attributes: {
          tenantId: { type: 'string', required: true, readOnly: true },
          listKey: { type: LEAD_LISTS, required: true, readOnly: true },
          prefix: { type: 'string', required: true, readOnly: true },
          leadId: { type: 'string', required: true, readOnly: true },
          createdAt: { type: 'string', required: true, readOnly: true },
          text: { type: 'string', required: true },
        },
        indexes: {
          byPrefix: {
            pk: {
              field: 'pk',
              composite: ['tenantId', 'listKey', 'prefix'],
              template: 't#${tenantId}#${listKey}-q#${prefix}',
              ...asIs,
            },
            sk: {
              field: 'sk',
              composite: ['createdAt', 'leadId'],
              template: '${createdAt}#${leadId}',
              ...asIs,
            },
          },
        },
      },
      entityConfig(),
    ),
);

/**
 * The token items written before tokens moved to creation order (each a copy of the Lead, keyed by
 * its updatedAt, under `t#<tenant>#lead-q#<prefix>`): never read any more, only deleted, by the
 * Lead's next write or `npm run migrate:lead-keys` (functions/data/lead-migration.ts).
 */
export const LegacyLeadSearchToken = lazyEntity(
  () =>
    new Entity(
      {
        model: { service: SERVICE, entity: 'leadSearchToken', version: '1' },
        attributes: {
          tenantId: { type: 'string', required: true, readOnly: true },
          prefix: { type: 'string', required: true, readOnly: true },
          leadId: { type: 'string', required: true, readOnly: true },
          updatedAt: { type: 'string', required: true, readOnly: true },
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
