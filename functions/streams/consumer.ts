import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { DynamoDBBatchResponse, DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';
import { isStreamIgnored } from '../data/stream-entities.ts';
import { logger } from '../kernel/logger.ts';
import { queueRequestedEnrichment } from '../services/enrichment.ts';
import { recordEvents } from './events.ts';
import type { TableChange } from './table-change.ts';

export type { TableChange } from './table-change.ts';

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

/** What the consumer does with each change; later capabilities (events, webhooks) plug in here. */
export type ChangeProcessor = (change: TableChange) => Promise<void>;

const processors: ChangeProcessor[] = [
  // The events log (interface §6): every change of a public resource, as the events it emits.
  recordEvents,
  // Outbox for AI enrichment: the write that requested it committed, so the request cannot be lost.
  (change) => queueRequestedEnrichment(change.oldImage, change.newImage),
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
