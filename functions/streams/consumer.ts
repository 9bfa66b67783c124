import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { DynamoDBBatchResponse, DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';
import { isStreamIgnored } from '../data/stream-entities.ts';
import { logger } from '../kernel/logger.ts';
import { recordEvents } from './events.ts';
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
  // The events log (interface §6): every change of a public resource, as the events it emits.
  recordEvents,
  // Reactions (functions/streams/reactions): what follows from a write, off the request path.
  // The Owner's email about a new Inquiry or an assignment by the rule (once per notice).
  ownerNotification,
  // (Re)scoring after an Inquiry or a criteria change, on the AI queue.
  scoringRequest,
  // AI enrichment of a listing that asks for it (an outbox: the write committed, so it cannot be lost).
  enrichmentRequest,
  // Webhooks: fan-out of new events, and queued redeliveries. Loaded on first use: the delivery
  // module brings undici and the signer, which a batch without events or deliveries never needs.
  (change) => import('./webhook-fanout.ts').then((m) => m.webhookFanout(change)),
];

/**
 * The DynamoDB Streams consumer. Records are processed in order; the first failure and everything
 * after it are reported as batch item failures so that Lambda retries from there (and nothing
 * later is processed ahead of it). A record that can never succeed is retried a bounded number of
 * times, then handed to the failure destination and skipped (the event source's `retryAttempts`,
 * `bisectBatchOnError` and `onFailure` in AWS; scripts/local/stream-poller.ts parks it locally).
 */
export async function handler(event: DynamoDBStreamEvent): Promise<DynamoDBBatchResponse> {
  const records = event.Records;
  for (let i = 0; i < records.length; i++) {
    const record = records[i] as DynamoDBRecord;
    try {
      const entity = entityOf(record);
      if (isStreamIgnored(entity)) continue;
      const change = decode(record, entity);
      logger.debug('table change', { entity, kind: change.kind, eventId: change.eventId });
      for (const process of processors) await process(change);
    } catch (error) {
      logger.error('stream record failed', { eventId: record.eventID, error: error as Error });
      return {
        batchItemFailures: records
          .slice(i)
          .map((r) => ({ itemIdentifier: r.dynamodb?.SequenceNumber ?? '' })),
      };
    }
  }
  return { batchItemFailures: [] };
}
