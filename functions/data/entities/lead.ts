import { Entity } from 'electrodb';
import {
  asIs,
  entityConfig,
  lazyEntity,
  ownPartition,
  SERVICE,
  timestamps,
  updatedOrderByList,
} from './common.ts';

/**
 * The list a Lead is filed under in gsi1–gsi4 (and its search tokens): live Leads under `leads`
 * (the key every Lead had before archived ones moved out), archived ones under `archived-leads`,
 * so a list of live Leads never reads an archived one.
 */
export const LEAD_LISTS = ['leads', 'archived-leads'] as const;
export type LeadList = (typeof LEAD_LISTS)[number];

/**
 * A Lead: a contact in the agency's pipeline. Indexed for the filters of GET /v1/leads so a
 * filtered page is a Query, never a read of the whole Tenant:
 * - gsi1: every Lead by (updatedAt, id);
 * - gsi2: by status; gsi3: by owner (an agent id or `unassigned`); gsi4: by score tier (`unscored`
 *   until scored). Free-text `q` uses LeadSearchToken items.
 * Each partition key carries `listKey`: archived Leads sit in partitions of their own.
 */
export const Lead = lazyEntity(
  () =>
    new Entity(
      {
        model: { service: SERVICE, entity: 'lead', version: '1' },
        attributes: {
          tenantId: { type: 'string', required: true, readOnly: true },
          id: { type: 'string', required: true, readOnly: true },
          name: { type: 'string', required: true },
          /** Normalised (trimmed, lowercased); claimed unique per Tenant (UniqueClaim lead-email). */
          email: { type: 'string' },
          /** E.164; claimed unique per Tenant (UniqueClaim lead-phone). */
          phone: { type: 'string' },
          locale: { type: 'string' },
          notes: { type: 'string' },
          status: {
            type: ['new', 'contacted', 'qualified', 'negotiating', 'closed_won', 'closed_lost'] as const,
            required: true,
          },
          source: {
            type: ['website', 'manual', 'concierge', 'api', 'import', 'widget'] as const,
            required: true,
          },
          /** Free-text attribution of the integration that brought the Lead (ingest `source`, `campaign`). */
          sourceDetail: { type: 'string' },
          campaign: { type: 'string' },
          assignedAgentId: { type: 'string' },
          /**
           * Set (a fresh id) when the owner rule made an Agent the Owner outside an Inquiry (a walk-in
           * add, an ingested note): the stream reaction emails that Agent once per id. An Inquiry's
           * own notice tells its Owner instead.
           */
          assignmentNoticeId: { type: 'string' },
          /** gsi3's value: the owner, or `unassigned`. Kept in step with assignedAgentId by the writers. */
          ownerKey: { type: 'string', required: true, default: 'unassigned' },
          isActive: { type: 'boolean', required: true, default: true },
          score: { type: 'number' },
          scoreTier: { type: ['hot', 'warm', 'moderate', 'cold'] as const },
          /** gsi4's value: the tier, or `unscored`. */
          tierKey: { type: 'string', required: true, default: 'unscored' },
          buyerType: {
            type: [
              'investor',
              'retiree',
              'vacation_home',
              'relocation',
              'renter',
              'local_buyer',
              'unknown',
            ] as const,
          },
          recommendedAction: {
            type: ['call_immediately', 'send_comps', 'nurture_sequence', 'low_priority'] as const,
          },
          scoreReasons: { type: 'list', items: { type: 'string' } },
          scoredAt: { type: 'string' },
          /** gsi1–gsi4's list: `leads` while active, `archived-leads` once archived (LEAD_LISTS). */
          listKey: { type: LEAD_LISTS, default: 'leads' },
          /**
           * Legacy (written before search tokens were keyed by creation): the prefixes of the Lead's
           * version-1 token items, deleted by its next write (functions/data/lead-search.ts).
           */
          searchPrefixes: { type: 'list', items: { type: 'string' } },
          /**
           * The folded words the Lead is found by (" word word…"): tells a write whether its tokens
           * change, names their prefixes (lead-search.ts searchKeysOf), and serves a `q` whose words
           * are too short to have a token partition.
           */
          searchText: { type: 'string' },
          firstSeenAt: { type: 'string' },
          lastContactAt: { type: 'string' },
          ...timestamps,
        },
        indexes: {
          byId: ownPartition('lead'),
          byUpdated: updatedOrderByList(),
          byStatus: {
            index: 'gsi2',
            pk: {
              field: 'gsi2pk',
              composite: ['tenantId', 'listKey', 'status'],
              template: 't#${tenantId}#${listKey}#status#${status}',
              ...asIs,
            },
            sk: { field: 'gsi2sk', composite: ['updatedAt', 'id'], template: '${updatedAt}#${id}', ...asIs },
          },
          byOwner: {
            index: 'gsi3',
            pk: {
              field: 'gsi3pk',
              composite: ['tenantId', 'listKey', 'ownerKey'],
              template: 't#${tenantId}#${listKey}#owner#${ownerKey}',
              ...asIs,
            },
            sk: { field: 'gsi3sk', composite: ['updatedAt', 'id'], template: '${updatedAt}#${id}', ...asIs },
          },
          byTier: {
            index: 'gsi4',
            pk: {
              field: 'gsi4pk',
              composite: ['tenantId', 'listKey', 'tierKey'],
              template: 't#${tenantId}#${listKey}#tier#${tierKey}',
              ...asIs,
            },
            sk: { field: 'gsi4sk', composite: ['updatedAt', 'id'], template: '${updatedAt}#${id}', ...asIs },
          },
        },
      },
      entityConfig(),
    ),
);
