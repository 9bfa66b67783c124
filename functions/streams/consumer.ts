import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { DynamoDBBatchResponse, DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';
import { isStreamIgnored } from '../data/stream-entities.ts';
import { logger } from '../kernel/logger.ts';
import { withMetrics } from '../kernel/metrics.ts';
import { recordEvents } from './events.ts';
import { catalogueRebuildRequest } from './reactions/catalogue-rebuild.ts';
import { enrichmentRequest } from './reactions/enrichment-request.ts';
import { ownerNotification } from './reactions/owner-notification.ts';
import { scoringRequest } from './reactions/scoring-request.ts';
import type { ChangeProcessor, TableChange } from './table-change.ts';

export type { ChangeProcessor, TableChange } from './table-change.ts';

type RawImage = Record<string, AttributeValue> | undefined;

/** The entity of a record, read from its raw image (ElectroDB's `__edb_e__`). */
function entityOf(record: DynamoDBRecord): string | undefined {
  const entityName = (image: RawImage) => image?.__edb_e__?.S;
  return (
    entityName(record.dynamodb?.NewImage as RawImage) ?? entityName(record.dynamodb?.OldImage as RawImage)
  );
}

function decode(record: DynamoDBRecord, entity: string | undefined): TableChange {
  const image = (value: unknown) => (value ? unmarshall(value as Record<string, AttributeValue>) : undefined);
  return {
    eventId: record.eventID ?? '',
    kind: (record.eventName ?? 'MODIFY') as TableChange['kind'],
    entity,
    oldImage: image(record.dynamodb?.OldImage),
    newImage: image(record.dynamodb?.NewImage),
  };
}

/**
 * What the consumer does with each change, in order. A processor that throws fails the record: it
 * is retried with everything after it, so every processor is safe to run again on the same change.
 */
const processors: ChangeProcessor[] = [
  // The events log (docs/events-and-webhooks.md): every change of a public resource, as its events.
  recordEvents,
  // Reactions (functions/streams/reactions): what follows from a write, off the request path.
  // The Owner's email about a new Inquiry or an assignment by the rule (once per notice).
  ownerNotification,
  // (Re)scoring after an Inquiry or a criteria change, on the AI queue.
  scoringRequest,
  // AI enrichment of a listing that asks for it (an outbox: the write committed, so it cannot be lost).
  enrichmentRequest,
  // A listing change makes its Tenant's catalogue snapshot due a rebuild (debounced per Tenant).
  catalogueRebuildRequest,
  // Webhooks: fan-out of new events, and queued redeliveries. Loaded on first use: the delivery
  // module brings undici and the signer, which a batch without events or deliveries never needs.
  (change) => import('./webhook-fanout.ts').then((m) => m.webhookFanout(change)),
];

/**
 * The DynamoDB Streams consumer. Records are processed in order; nothing later is processed ahead
 * of a failed record. What it answers follows the event source mapping's documented semantics
 * (functions/workers.ts: reportBatchItemFailures and bisectBatchOnError on): Lambda checkpoints
 * before the lowest reported record and retries from it *with every record after it*, whatever the
 * handler lists, and after `retryAttempts` discards that whole retried batch to the on-failure
 * destination. So a record that can never succeed would take the records after it down with it.
 * Hence:
 * - a failure after the batch's first record is reported (it and everything after it): the
 *   records before it are checkpointed, and the retry starts at the failed record;
 * - a failure of the batch's first record in a batch of several throws: Lambda splits the batch in
 *   two and retries each half, again and again, until the failing record is alone in its batch;
 *   only then do its retries run out, so only it is discarded (with its sequence number on the
 *   on-failure destination, to replay it), and the records after it are processed;
 * - permanent failures of a side effect (SES refusing an email for good) do not fail a record at
 *   all: the reaction parks them (functions/streams/reactions/owner-notification.ts).
 * Records processed before a split are processed again: every processor is safe to run twice.
 */
async function consumeStream(event: DynamoDBStreamEvent): Promise<DynamoDBBatchResponse> {
  const records = event.Records;
  for (let i = 0; i < records.length; i++) {
    const record = records[i] as DynamoDBRecord;
    try {
      const entity = entityOf(record);
      if (isStreamIgnored(entity, record)) continue;
      const change = decode(record, entity);
      logger.debug('table change', { entity, kind: change.kind, eventId: change.eventId });
      for (const process of processors) await process(change);
    } catch (error) {
      logger.error('stream record failed', { eventId: record.eventID, error: error as Error });
      if (i === 0 && records.length > 1) {
        throw new StreamBatchSplit(record.eventID, records.length, error);
      }
      return {
        batchItemFailures: records
          .slice(i)
          .map((r) => ({ itemIdentifier: r.dynamodb?.SequenceNumber ?? '' })),
      };
    }
  }
  return { batchItemFailures: [] };
}

/** The parked side effects it counts (OwnerNoticesParked) are published when each invocation ends. */
export const handler = withMetrics(consumeStream);

/** Thrown to have Lambda split the batch (bisectBatchOnError): its first record failed. */
export class StreamBatchSplit extends Error {
  constructor(eventId: string | undefined, size: number, cause: unknown) {
    super(`stream record ${eventId} failed at the head of a batch of ${size}: split the batch`, { cause });
    this.name = 'StreamBatchSplit';
  }
}
