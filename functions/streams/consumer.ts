import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { DynamoDBBatchResponse, DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';
import { logger } from '../platform/logger.ts';
import { queueRequestedEnrichment } from '../services/enrichment.ts';

/** One table change, decoded: which entity, and its images before and after. */
export interface TableChange {
  eventId: string;
  kind: 'INSERT' | 'MODIFY' | 'REMOVE';
  entity: string | undefined;
  oldImage: Record<string, unknown> | undefined;
  newImage: Record<string, unknown> | undefined;
}

function decode(record: DynamoDBRecord): TableChange {
  const image = (value: unknown) => (value ? unmarshall(value as Record<string, AttributeValue>) : undefined);
  const newImage = image(record.dynamodb?.NewImage);
  const oldImage = image(record.dynamodb?.OldImage);
  return {
    eventId: record.eventID ?? '',
    kind: (record.eventName ?? 'MODIFY') as TableChange['kind'],
    entity: (newImage?.__edb_e__ ?? oldImage?.__edb_e__) as string | undefined,
    oldImage,
    newImage,
  };
}

/** What the consumer does with each change; later capabilities (events, webhooks) plug in here. */
export type ChangeProcessor = (change: TableChange) => Promise<void>;

const processors: ChangeProcessor[] = [
  async (change) => {
    if (change.entity === 'rateLimitWindow' || change.entity === 'idempotencyRecord') return;
    logger.debug('table change', { entity: change.entity, kind: change.kind, eventId: change.eventId });
  },
  // Outbox for AI enrichment: the write that requested it committed, so the request cannot be lost.
  (change) => queueRequestedEnrichment(change.oldImage, change.newImage),
  (change) => import('./webhook-fanout.ts').then((m) => m.webhookFanout(change)),
];

/**
 * The DynamoDB Streams consumer. Records are processed in order; the first failure and everything
 * after it are reported as batch item failures so that Lambda retries from there (and nothing
 * later is processed ahead of it).
 */
export async function handler(event: DynamoDBStreamEvent): Promise<DynamoDBBatchResponse> {
  const records = event.Records;
  for (let i = 0; i < records.length; i++) {
    const record = records[i] as DynamoDBRecord;
    try {
      const change = decode(record);
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
