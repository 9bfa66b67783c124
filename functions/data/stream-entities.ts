/**
 * Which table items the stream consumer reads, by ElectroDB entity name (`__edb_e__`). One list,
 * read by both sides: the CDK event-source filter (lib/stacks/async-stack.ts) drops the ignored
 * entities' records before Lambda is invoked, and the consumer (functions/streams/consumer.ts) skips
 * them undecoded where no filter runs (the local stream poller). Every entity of
 * functions/data/entities is in exactly one of the two lists (test/infra/async.test.ts checks it).
 */

/**
 * Counters and bookkeeping written on request paths (a rate-limit window on every request, an
 * idempotency record on every write) and copies derived from another item: no processor needs them.
 */
export const STREAM_IGNORED_ENTITIES = [
  'rateLimitWindow',
  'siteRateWindow',
  // Website view counters (with the minute's visitor marks on them).
  'listingViews',
  'idempotencyRecord',
  'uniqueClaim',
  'leadSearchToken',
  'aiSpend',
  'aiCharge',
  'assignmentCounter',
  'localQueueMessage',
  'outboxEmail',
  // Receipts of the stream reactions' own effects: written by the consumer, read by it only.
  'reactionReceipt',
  // The debounce of catalogue snapshot rebuilds: its own rebuilder reads it, on a schedule.
  'catalogueRebuild',
  // A photo import's progress: the gallery change it ends in is a change of the listing itself.
  'imageImport',
  // A listing's text kept beside it: written with the listing item, whose change the stream reads.
  'propertyText',
] as const;

/**
 * Entities whose changes reach the stream consumer (events, the reactions of functions/streams/reactions:
 * owner notices, scoring and enrichment requests; webhook fan-out).
 */
export const STREAM_ENTITIES = [
  'tenant',
  'apiKey',
  'agent',
  'place',
  'area',
  'areaMembership',
  'property',
  'lead',
  'leadCriteria',
  'leadProperty',
  'matchSent',
  'inquiry',
  'activity',
  // The webhook fan-out reacts to new event items; deriving events skips them (no event of an event).
  'event',
  // A delivery whose send request changed (redeliver, test) is queued from here (an outbox).
  'webhookDelivery',
  // An endpoint the delivery worker disabled: its Tenant Admins are emailed from here (an outbox).
  'webhookEndpoint',
] as const;

const ignored: ReadonlySet<string> = new Set(STREAM_IGNORED_ENTITIES);

/**
 * The principal DynamoDB names on the stream record of a delete it made itself: a TTL expiry (an
 * event after its 30 days, a delivery after its retention). No processor reads those: an expiry is
 * housekeeping, never a change the service made, and an event's expiry alone is millions of records
 * a month for a large Tenant.
 */
export const TTL_DELETE_PRINCIPAL = 'dynamodb.amazonaws.com';

/** The parts of a stream record that tell who removed an item (aws-lambda's `DynamoDBRecord` fits). */
export interface StreamRecordOrigin {
  eventName?: string | undefined;
  userIdentity?: { principalId?: string | undefined } | null | undefined;
}

/**
 * True for a record no stream processor reads: a change of a bookkeeping entity, or a TTL expiry of
 * any item. The same rule as the event source mapping's filter (lib/stacks/async-stack.ts), for where
 * no filter runs (the local stream poller).
 */
export function isStreamIgnored(entity: string | undefined, record?: StreamRecordOrigin): boolean {
  if (record?.eventName === 'REMOVE' && record.userIdentity?.principalId === TTL_DELETE_PRINCIPAL)
    return true;
  return entity !== undefined && ignored.has(entity);
}
