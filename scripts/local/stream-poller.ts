import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { type AttributeValue, DescribeTableCommand, PutItemCommand } from '@aws-sdk/client-dynamodb';
import {
  DescribeStreamCommand,
  DynamoDBStreamsClient,
  GetRecordsCommand,
  GetShardIteratorCommand,
  type _Record as StreamRecord,
} from '@aws-sdk/client-dynamodb-streams';
import type { DynamoDBStreamEvent } from 'aws-lambda';
import { type WorkerDefinition, type WorkerTrigger, workerFor } from '../../functions/workers.ts';
import { localClient } from './dynamo-local.ts';

type StreamHandler = (
  event: DynamoDBStreamEvent,
) => Promise<{ batchItemFailures: { itemIdentifier: string }[] }>;

/**
 * A record the event source gave up on and sent to the on-failure destination: its batch failed
 * every retry, or the record grew older than the maximum record age.
 */
export interface ParkedRecord {
  shardId: string;
  sequenceNumber: string;
  eventId: string;
  /** Failed invocations of the record's batch (0 when it was discarded for its age). */
  attempts: number;
  reason: DiscardReason;
  /** The item's keys, to find it again. */
  keys: Record<string, unknown> | undefined;
}

/** Why records were discarded (the `condition` Lambda writes into an on-failure record). */
export type DiscardReason = 'RetryAttemptsExhausted' | 'RecordAgeExceeded';

/**
 * The local on-failure destination, in the table: `pk = global#stream-parked`,
 * `sk = <parkedAt>#<sequenceNumber>`, one item per discarded record with what Lambda's SQS
 * destination holds (shard, sequence numbers, condition) and the whole record besides (AWS keeps
 * only the metadata; the stream keeps the record 24 h).
 */
export const PARKED_PARTITION = 'global#stream-parked';

/** The event source mapping's settings: the stream row of the worker table. */
export type StreamMapping = Omit<Extract<WorkerTrigger, { kind: 'stream' }>, 'kind'> & {
  /** The function's timeout: an invocation that takes longer has failed. */
  timeoutSeconds: number;
};

/** The stream consumer's row of functions/workers.ts as the poller applies it. */
export function streamMappingOf(row: WorkerDefinition): StreamMapping {
  if (row.trigger.kind !== 'stream') throw new Error(`${row.name} is not triggered by the stream`);
  const { kind: _, ...mapping } = row.trigger;
  return { ...mapping, timeoutSeconds: row.timeoutSeconds };
}

/**
 * How often an idle poller looks for shards it has not seen, besides after a shard ended: a safety
 * net (a stream re-enabled under a new ARN), not the path by which children are found.
 */
const REDISCOVER_MS = 10_000;

/** Where each shard was left: after `sequenceNumber`, or read to its end. Kept in a JSON file. */
type Checkpoints = Record<string, { sequenceNumber?: string; ended?: true }>;

function readCheckpoints(file: string | undefined): Checkpoints | undefined {
  if (!file || !existsSync(file)) return undefined;
  return JSON.parse(readFileSync(file, 'utf8')) as Checkpoints;
}

/** Written whole to a temporary file and renamed over the old one: a crash leaves one or the other. */
function writeCheckpoints(file: string, checkpoints: Checkpoints): void {
  mkdirSync(dirname(file), { recursive: true });
  const temporary = `${file}.${process.pid}.tmp`;
  writeFileSync(temporary, JSON.stringify(checkpoints));
  renameSync(temporary, file);
}

/** The stand-in's verdict on one invocation. */
type Outcome = { kind: 'ok' } | { kind: 'partial'; from: number } | { kind: 'error' };

/** The records of one shard waiting to be (re)delivered, and how often they have failed. */
interface PendingBatch {
  records: StreamRecord[];
  attempts: number;
}

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
 * Plays Lambda's event source mapping for the stream consumer locally, with the mapping's settings
 * (`mapping`, by default the streamConsumer row of functions/workers.ts): polls every shard of the
 * table's stream on DynamoDB Local and hands the records, in order, to the same handler module
 * Lambda runs, one batch at a time per shard; a child shard waits until its parent is read to its end.
 *
 * - Checkpoints: each shard's position is kept in `checkpointFile` (under DATA_DIR for `npm start`)
 *   once a batch succeeded, so a restart resumes where it was and a crash mid-batch delivers that
 *   batch again (duplicates, never losses). A shard not in the file is read from its start (a new
 *   shard, a child of a closed one); only on the very first start, with no file, does
 *   `initialPosition` apply (`LATEST` for tests that share a table with others).
 * - Failures: a partial batch response checkpoints before the lowest failed record and retries from
 *   it (everything after it included, as Lambda does); an invocation that throws or outlives the
 *   function timeout is split in two (`bisectBatchOnError`) and each half retried; a batch of one
 *   that failed, or any batch that failed `retryAttempts` retries, is discarded to the on-failure
 *   destination (PARKED_PARTITION, `onParked`) and the shard moves on. Records older than
 *   `maxRecordAgeSeconds` are discarded there without being delivered.
 */
export function startStreamPoller(options: {
  endpoint: string;
  tableName: string;
  handler: StreamHandler;
  intervalMs?: number;
  /** The mapping's settings. @default the streamConsumer row of functions/workers.ts */
  mapping?: Partial<StreamMapping>;
  /** Where shard checkpoints are kept; without one they live in memory only. */
  checkpointFile?: string;
  /** Where shards start on the first start (no checkpoints yet). @default 'TRIM_HORIZON' */
  initialPosition?: 'TRIM_HORIZON' | 'LATEST';
  /** How often an idle poller looks for new shards besides after a shard ended. @default REDISCOVER_MS */
  rediscoverMs?: number;
  /** The clock records' ages are measured with (tests move it). */
  now?: () => number;
  onError?: (error: unknown) => void;
  onParked?: (parked: ParkedRecord) => void;
}): { stop: () => Promise<void>; ready: Promise<void> } {
  const mapping: StreamMapping = { ...streamMappingOf(workerFor('streamConsumer')), ...options.mapping };
  const now = options.now ?? Date.now;
  const streams = new DynamoDBStreamsClient({
    endpoint: options.endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
  const dynamo = localClient(options.endpoint);
  const saved = readCheckpoints(options.checkpointFile);
  const firstStart = saved === undefined;
  const checkpoints: Checkpoints = saved ?? {};
  /** The next read of each open shard (undefined: read to its end). */
  const iterators = new Map<string, string | undefined>();
  const parents = new Map<string, string | undefined>();
  const pending = new Map<string, PendingBatch[]>();
  let discovered = false;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let markReady: () => void = () => undefined;
  /** Settles once every shard has an iterator: changes made from then on are delivered. */
  const ready = new Promise<void>((resolve) => {
    markReady = resolve;
  });

  function checkpoint(shardId: string, position: { sequenceNumber?: string; ended?: true }): void {
    checkpoints[shardId] = { ...checkpoints[shardId], ...position };
    if (options.checkpointFile) writeCheckpoints(options.checkpointFile, checkpoints);
  }

  async function iteratorAt(
    streamArn: string,
    shardId: string,
    type: 'LATEST' | 'TRIM_HORIZON' | 'AFTER_SEQUENCE_NUMBER',
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
      const shardId = shard.ShardId;
      if (!shardId || iterators.has(shardId)) continue;
      parents.set(shardId, shard.ParentShardId);
      const at = checkpoints[shardId];
      if (at?.ended) {
        iterators.set(shardId, undefined);
        continue;
      }
      const iterator = at?.sequenceNumber
        ? await iteratorAt(streamArn, shardId, 'AFTER_SEQUENCE_NUMBER', at.sequenceNumber)
        : await iteratorAt(
            streamArn,
            shardId,
            // Only shards there at the very first start may begin at LATEST; any later one is new.
            firstStart && !discovered ? (options.initialPosition ?? 'TRIM_HORIZON') : 'TRIM_HORIZON',
          );
      iterators.set(shardId, iterator);
      // Known from now on: a restart reads it from its start rather than from "now".
      if (!at) checkpoint(shardId, {});
    }
    discovered = true;
  }

  async function park(shardId: string, records: StreamRecord[], attempts: number, reason: DiscardReason) {
    for (const record of records) {
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
            startSequenceNumber: { S: records[0]?.dynamodb?.SequenceNumber ?? '' },
            endSequenceNumber: { S: records.at(-1)?.dynamodb?.SequenceNumber ?? '' },
            batchSize: { N: String(records.length) },
            condition: { S: reason },
            attempts: { N: String(attempts) },
            record: { S: JSON.stringify(record) },
            parkedAt: { S: parkedAt },
          } satisfies Record<string, AttributeValue>,
        }),
      );
      options.onParked?.({
        shardId,
        sequenceNumber,
        eventId: record.eventID ?? '',
        attempts,
        reason,
        keys: record.dynamodb?.Keys as Record<string, unknown> | undefined,
      });
    }
  }

  /** One invocation, bounded by the function timeout: a timed-out invocation has failed. */
  async function invoke(streamArn: string, records: StreamRecord[]): Promise<Outcome> {
    let timeout: NodeJS.Timeout | undefined;
    const timedOut = new Promise<'timeout'>((resolve) => {
      timeout = setTimeout(() => resolve('timeout'), mapping.timeoutSeconds * 1000);
      timeout.unref();
    });
    try {
      const result = await Promise.race([
        options.handler({
          Records: records.map((r) => ({
            ...r,
            eventSourceARN: streamArn,
          })) as DynamoDBStreamEvent['Records'],
        }),
        timedOut,
      ]);
      if (result === 'timeout') {
        options.onError?.(new Error(`the stream handler timed out after ${mapping.timeoutSeconds} s`));
        return { kind: 'error' };
      }
      const failed = new Set(result.batchItemFailures.map((f) => f.itemIdentifier));
      if (failed.size === 0 || !mapping.reportBatchItemFailures) return { kind: 'ok' };
      const from = records.findIndex((r) => failed.has(r.dynamodb?.SequenceNumber ?? ''));
      // An identifier that names no record of the batch fails the whole batch, as on Lambda.
      return from < 0 ? { kind: 'error' } : { kind: 'partial', from };
    } catch (error) {
      options.onError?.(error);
      return { kind: 'error' };
    } finally {
      clearTimeout(timeout);
    }
  }

  /** Delivers the shard's first pending batch once; what is left to deliver stays pending. */
  async function deliverPending(streamArn: string, shardId: string, queue: PendingBatch[]): Promise<void> {
    const batch = queue[0] as PendingBatch;
    const tooOld = (r: StreamRecord) => {
      const created = r.dynamodb?.ApproximateCreationDateTime;
      return (
        created !== undefined && now() - new Date(created).getTime() > mapping.maxRecordAgeSeconds * 1000
      );
    };
    const expired = batch.records.filter(tooOld);
    if (expired.length) {
      await park(shardId, expired, batch.attempts, 'RecordAgeExceeded');
      batch.records = batch.records.filter((r) => !tooOld(r));
    }
    const outcome = batch.records.length ? await invoke(streamArn, batch.records) : ({ kind: 'ok' } as const);
    /** The last record of the shard that is done with (processed or discarded): its checkpoint. */
    let doneWith: StreamRecord | undefined;
    if (outcome.kind === 'ok') {
      doneWith = batch.records.at(-1);
      queue.shift();
    } else if (outcome.kind === 'partial') {
      // Checkpointed before the lowest failed record; the retry starts there, with all after it.
      doneWith = batch.records[outcome.from - 1];
      batch.records = batch.records.slice(outcome.from);
      batch.attempts += 1;
    } else if (mapping.bisectBatchOnError && batch.records.length > 1) {
      const half = Math.ceil(batch.records.length / 2);
      const attempts = batch.attempts + 1;
      queue.splice(
        0,
        1,
        { records: batch.records.slice(0, half), attempts },
        { records: batch.records.slice(half), attempts },
      );
    } else {
      batch.attempts += 1;
    }
    const head = queue[0];
    if (head && head.attempts > mapping.retryAttempts) {
      await park(shardId, head.records, head.attempts, 'RetryAttemptsExhausted');
      doneWith = head.records.at(-1);
      queue.shift();
    }
    const sequenceNumber = doneWith?.dynamodb?.SequenceNumber;
    if (sequenceNumber) checkpoint(shardId, { sequenceNumber });
  }

  /** Answers whether the shard had new records: a shard with a backlog is read again at once. */
  async function pollShard(streamArn: string, shardId: string): Promise<boolean> {
    const queue = pending.get(shardId) ?? [];
    pending.set(shardId, queue);
    if (queue.length) {
      await deliverPending(streamArn, shardId, queue);
      return false;
    }
    const iterator = iterators.get(shardId);
    if (!iterator) return false;
    const { Records, NextShardIterator } = await streams.send(
      new GetRecordsCommand({ ShardIterator: iterator, Limit: mapping.batchSize }),
    );
    iterators.set(shardId, NextShardIterator);
    // The local destination's own items are no change of the service (AWS's is a queue, not the table).
    const records = (Records ?? []).filter((r) => r.dynamodb?.Keys?.pk?.S !== PARKED_PARTITION);
    const last = Records?.at(-1)?.dynamodb?.SequenceNumber;
    if (records.length === 0 && last && !queue.length) checkpoint(shardId, { sequenceNumber: last });
    if (records.length) {
      for (const record of records) {
        restoreEmptyMaps(record.dynamodb?.NewImage as Record<string, unknown> | undefined);
        restoreEmptyMaps(record.dynamodb?.OldImage as Record<string, unknown> | undefined);
      }
      queue.push({ records, attempts: 0 });
      await deliverPending(streamArn, shardId, queue);
    }
    if (!NextShardIterator && queue.length === 0) {
      checkpoint(shardId, { ended: true });
      shardEnded = true;
    }
    return records.length > 0;
  }

  /** A child shard is read once its parent is read to its end (or no longer in the stream). */
  function parentOpen(shardId: string): boolean {
    const parent = parents.get(shardId);
    return parent !== undefined && iterators.has(parent) && !checkpoints[parent]?.ended;
  }

  /** The stream as last described, and when: shards are looked for again only when they can have changed. */
  let described: { streamArn: string; at: number } | undefined;
  /** Set when a shard is read to its end: its children (opened as it closed) are looked for at once. */
  let shardEnded = false;

  /**
   * The table's stream and its shards, described again only on the first poll, after a shard ended
   * (a child opens as its parent closes: the only way a stream gains a shard that has records for
   * us), or every `rediscoverMs` otherwise. Describing both every interval was two of an idle
   * poller's three requests to DynamoDB Local (30 a second per test file at a 100 ms interval).
   */
  async function currentStream(): Promise<string | undefined> {
    if (described && !shardEnded && Date.now() - described.at < (options.rediscoverMs ?? REDISCOVER_MS))
      return described.streamArn;
    const { Table } = await dynamo.send(new DescribeTableCommand({ TableName: options.tableName }));
    const streamArn = Table?.LatestStreamArn;
    if (!streamArn) return undefined;
    shardEnded = false;
    await discoverShards(streamArn);
    described = { streamArn, at: Date.now() };
    return streamArn;
  }

  /** One pass over the shards; answers whether any had new records. */
  async function poll(): Promise<boolean> {
    const streamArn = await currentStream();
    if (!streamArn) return false;
    markReady();
    let read = false;
    for (const shardId of iterators.keys()) {
      if (stopped) return read;
      if (!parentOpen(shardId) && (await pollShard(streamArn, shardId))) read = true;
    }
    return read;
  }

  /** The poll under way, if any: `stop` waits for it (a batch is delivered whole or not at all). */
  let running: Promise<boolean> | undefined;
  const loop = async () => {
    if (stopped) return;
    running = poll().catch((error: unknown) => {
      // Whatever failed (a stream gone, a shard trimmed), the next poll starts from a fresh description.
      described = undefined;
      options.onError?.(error);
      return false;
    });
    const read = await running;
    running = undefined;
    // Lambda reads a shard with a backlog again as soon as a batch is done, and waits only when
    // a shard is caught up (or a failed batch waits for its retry). Waiting the interval after
    // every batch capped the local consumer at one batch per shard an interval, however long
    // the backlog.
    if (!stopped) timer = setTimeout(loop, read ? 0 : (options.intervalMs ?? 500));
  };
  void loop();
  return {
    ready,
    stop: async () => {
      stopped = true;
      if (timer) clearTimeout(timer);
      await running;
    },
  };
}
