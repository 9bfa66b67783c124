import { type AttributeValue, DescribeTableCommand, PutItemCommand } from '@aws-sdk/client-dynamodb';
import {
  DescribeStreamCommand,
  DynamoDBStreamsClient,
  GetRecordsCommand,
  GetShardIteratorCommand,
  type _Record as StreamRecord,
} from '@aws-sdk/client-dynamodb-streams';
import type { DynamoDBStreamEvent } from 'aws-lambda';
import { localClient } from './dynamo-local.ts';

type StreamHandler = (
  event: DynamoDBStreamEvent,
) => Promise<{ batchItemFailures: { itemIdentifier: string }[] }>;

/** A record that failed every attempt and was set aside so that the records after it could flow. */
export interface ParkedRecord {
  shardId: string;
  sequenceNumber: string;
  eventId: string;
  attempts: number;
  /** The item's keys, to find it again. */
  keys: Record<string, unknown> | undefined;
}

/** Where parked records are written in the table: `pk = global#stream-parked`, `sk = <parkedAt>#<sequenceNumber>`. */
export const PARKED_PARTITION = 'global#stream-parked';

/**
 * DynamoDB Local 3.x leaves the type out of an empty map in stream images (`{}` instead of
 * `{"M": {}}`; awslabs/amazon-dynamodb-local-samples#37): DynamoDB itself always sends it, and the
 * consumer could not decode such a record ("No value defined: {}"). An attribute value without a
 * type can only be that empty map, so it is restored as one.
 */
export function restoreEmptyMaps(image: Record<string, unknown> | undefined): void {
  if (!image) return;
  for (const [name, value] of Object.entries(image)) image[name] = restoreValue(value);
}

function restoreValue(value: unknown): unknown {
  if (!value || typeof value !== 'object') return value;
  const attribute = value as { M?: Record<string, unknown>; L?: unknown[] };
  if (Object.keys(attribute).length === 0) return { M: {} };
  if (attribute.M) restoreEmptyMaps(attribute.M);
  if (Array.isArray(attribute.L)) attribute.L = attribute.L.map(restoreValue);
  return attribute;
}

/**
 * Plays Lambda's part for the stream consumer locally: polls every shard of the table's stream on
 * DynamoDB Local and hands the records, in order, to the same handler module Lambda runs.
 *
 * Failures behave as on Lambda's event source (reportBatchItemFailures, bounded retries, a failure
 * destination): the first failed record and those after it are delivered again, up to
 * `maxAttempts` times; then the record is parked (written under PARKED_PARTITION and passed to
 * `onParked`) and the records after it flow on.
 */
export function startStreamPoller(options: {
  endpoint: string;
  tableName: string;
  handler: StreamHandler;
  intervalMs?: number;
  /** Deliveries of a failing record before it is parked. @default 3 */
  maxAttempts?: number;
  onError?: (error: unknown) => void;
  onParked?: (parked: ParkedRecord) => void;
}): { stop: () => void; ready: Promise<void> } {
  const maxAttempts = options.maxAttempts ?? 3;
  const streams = new DynamoDBStreamsClient({
    endpoint: options.endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
  const dynamo = localClient(options.endpoint);
  const iterators = new Map<string, string | undefined>();
  /** Failed deliveries of a shard's first failing record, by sequence number. */
  const attempts = new Map<string, number>();
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let markReady: () => void = () => undefined;
  /** Settles once every shard has an iterator: changes made from then on are delivered. */
  const ready = new Promise<void>((resolve) => {
    markReady = resolve;
  });

  async function iteratorAt(
    streamArn: string,
    shardId: string,
    type: 'LATEST' | 'AT_SEQUENCE_NUMBER' | 'AFTER_SEQUENCE_NUMBER',
    sequenceNumber?: string,
  ): Promise<string | undefined> {
    const { ShardIterator } = await streams.send(
      new GetShardIteratorCommand({
        StreamArn: streamArn,
        ShardId: shardId,
        ShardIteratorType: type,
        ...(sequenceNumber ? { SequenceNumber: sequenceNumber } : {}),
      }),
    );
    return ShardIterator;
  }

  async function discoverShards(streamArn: string): Promise<void> {
    const { StreamDescription } = await streams.send(new DescribeStreamCommand({ StreamArn: streamArn }));
    for (const shard of StreamDescription?.Shards ?? []) {
      if (!shard.ShardId || iterators.has(shard.ShardId)) continue;
      iterators.set(shard.ShardId, await iteratorAt(streamArn, shard.ShardId, 'LATEST'));
    }
  }

  async function park(shardId: string, record: StreamRecord, count: number): Promise<void> {
    const sequenceNumber = record.dynamodb?.SequenceNumber ?? '';
    const parkedAt = new Date().toISOString();
    await dynamo.send(
      new PutItemCommand({
        TableName: options.tableName,
        Item: {
          pk: { S: PARKED_PARTITION },
          sk: { S: `${parkedAt}#${sequenceNumber}` },
          shardId: { S: shardId },
          sequenceNumber: { S: sequenceNumber },
          attempts: { N: String(count) },
          record: { S: JSON.stringify(record) },
          parkedAt: { S: parkedAt },
        } satisfies Record<string, AttributeValue>,
      }),
    );
    options.onParked?.({
      shardId,
      sequenceNumber,
      eventId: record.eventID ?? '',
      attempts: count,
      keys: record.dynamodb?.Keys as Record<string, unknown> | undefined,
    });
  }

  /** Delivers a batch; returns where the shard's next read starts. */
  async function deliver(
    streamArn: string,
    shardId: string,
    records: StreamRecord[],
    next: string | undefined,
  ): Promise<string | undefined> {
    for (const record of records) {
      restoreEmptyMaps(record.dynamodb?.NewImage as Record<string, unknown> | undefined);
      restoreEmptyMaps(record.dynamodb?.OldImage as Record<string, unknown> | undefined);
    }
    let failed: string | undefined;
    try {
      const result = await options.handler({
        Records: records.map((r) => ({ ...r, eventSourceARN: streamArn })) as DynamoDBStreamEvent['Records'],
      });
      failed = result.batchItemFailures[0]?.itemIdentifier;
    } catch (error) {
      options.onError?.(error);
      failed = records[0]?.dynamodb?.SequenceNumber;
    }
    if (failed === undefined) return next;
    const count = (attempts.get(failed) ?? 0) + 1;
    attempts.set(failed, count);
    if (count < maxAttempts) return iteratorAt(streamArn, shardId, 'AT_SEQUENCE_NUMBER', failed);
    attempts.delete(failed);
    const poison = records.find((r) => r.dynamodb?.SequenceNumber === failed);
    if (poison) await park(shardId, poison, count);
    return iteratorAt(streamArn, shardId, 'AFTER_SEQUENCE_NUMBER', failed);
  }

  async function poll(): Promise<void> {
    const { Table } = await dynamo.send(new DescribeTableCommand({ TableName: options.tableName }));
    const streamArn = Table?.LatestStreamArn;
    if (!streamArn) return;
    await discoverShards(streamArn);
    markReady();
    for (const [shardId, iterator] of iterators) {
      if (!iterator || stopped) continue;
      const { Records, NextShardIterator } = await streams.send(
        new GetRecordsCommand({ ShardIterator: iterator, Limit: 100 }),
      );
      iterators.set(
        shardId,
        Records?.length ? await deliver(streamArn, shardId, Records, NextShardIterator) : NextShardIterator,
      );
    }
  }

  const loop = async () => {
    if (stopped) return;
    try {
      await poll();
    } catch (error) {
      options.onError?.(error);
    }
    if (!stopped) timer = setTimeout(loop, options.intervalMs ?? 500);
  };
  void loop();
  return {
    ready,
    stop: () => {
      stopped = true;
      if (timer) clearTimeout(timer);
    },
  };
}
