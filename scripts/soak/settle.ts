/**
 * The soak's settle barrier: the audit judges only a system with nothing left to
 * do before the drain ends. Settled means:
 *
 * - the ai and images queues hold no message, visible or in flight; the webhooks queue none due
 *   before the drain ends (the ladder's later rungs may stay: they are judged as pending);
 * - no Scheduler stand-in schedule is due before the drain ends, and no pending delivery's next
 *   attempt either (a rung lost with a killed worker waits for the sweeper: not settled yet);
 * - the stream consumer is caught up: every shard has no record after its checkpoint (the
 *   consumer's checkpoint file under DATA_DIR, read with the Streams API as Lambda's poller would).
 */
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { DescribeTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  DescribeStreamCommand,
  DynamoDBStreamsClient,
  GetRecordsCommand,
  GetShardIteratorCommand,
} from '@aws-sdk/client-dynamodb-streams';
import { LocalQueueMessage } from '../../functions/data/entities/local-queue-message.ts';
import { listLiveEndpoints, queryDeliveriesSince } from '../../functions/data/webhooks.ts';
import { LOCAL_WEBHOOK_QUEUE } from '../../functions/kernel/ports/webhook-ladder.ts';
import { visibleAtKey } from '../local/adapters/local-queue.ts';
import { LOCAL_WEBHOOK_SCHEDULES } from '../local/adapters/webhook-ladder.ts';

/** The queues the soak's workers drain, and the Scheduler stand-in's schedules. */
const QUEUES = ['ai', 'images', LOCAL_WEBHOOK_QUEUE, LOCAL_WEBHOOK_SCHEDULES] as const;

export interface Unsettled {
  /** Messages due before the drain ends, by queue (in flight ones included). */
  queued: Record<string, number>;
  /** Stream records after the consumer's checkpoints. */
  streamBehind: number;
  /** Pending deliveries whose next attempt is due before the drain ends. */
  ladderDue: number;
}

const local = { region: 'us-east-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } };

/** Stream records the consumer has not checkpointed past (at most 5,000 counted per shard). */
async function streamRecordsBehind(endpoint: string, tableName: string, dataDir: string): Promise<number> {
  const file = resolve(dataDir, 'stream-checkpoints.json');
  const checkpoints = existsSync(file)
    ? (JSON.parse(readFileSync(file, 'utf8')) as Record<string, { sequenceNumber?: string; ended?: true }>)
    : {};
  const { Table } = await new DynamoDBClient({ endpoint, ...local }).send(
    new DescribeTableCommand({ TableName: tableName }),
  );
  if (!Table?.LatestStreamArn) return 0;
  const streams = new DynamoDBStreamsClient({ endpoint, ...local });
  const { StreamDescription } = await streams.send(
    new DescribeStreamCommand({ StreamArn: Table.LatestStreamArn }),
  );
  let behind = 0;
  for (const shard of StreamDescription?.Shards ?? []) {
    const at = checkpoints[shard.ShardId ?? ''];
    if (at?.ended) continue;
    const { ShardIterator } = await streams.send(
      new GetShardIteratorCommand({
        StreamArn: Table.LatestStreamArn,
        ShardId: shard.ShardId,
        ...(at?.sequenceNumber
          ? { ShardIteratorType: 'AFTER_SEQUENCE_NUMBER', SequenceNumber: at.sequenceNumber }
          : { ShardIteratorType: 'TRIM_HORIZON' }),
      }),
    );
    let iterator = ShardIterator;
    for (let page = 0; iterator && page < 50; page++) {
      const { Records, NextShardIterator } = await streams.send(
        new GetRecordsCommand({ ShardIterator: iterator, Limit: 100 }),
      );
      behind += Records?.length ?? 0;
      if (!Records?.length) break;
      iterator = NextShardIterator;
    }
  }
  return behind;
}

/** What is still to do before `drainEndsAt`, or undefined when the stack is settled. */
export async function unsettled(options: {
  endpoint: string;
  tableName: string;
  dataDir: string;
  drainEndsAt: number;
  /** The soak's endpoints, by Tenant. */
  endpoints: { tenantId: string; endpointId: string }[];
  /** Deliveries created since (the soak's start). */
  since: string;
}): Promise<Unsettled | undefined> {
  const queued: Record<string, number> = {};
  for (const queue of QUEUES) {
    // The ladder may hold rungs due after the drain (judged as pending); any other message, visible
    // or in flight, is work not done yet.
    const ladder = queue === LOCAL_WEBHOOK_QUEUE || queue === LOCAL_WEBHOOK_SCHEDULES;
    const { data } = await LocalQueueMessage.query
      .byVisibility({ queue })
      .lte({ visibleAt: visibleAtKey(ladder ? options.drainEndsAt : Number.MAX_SAFE_INTEGER), id: '\uffff' })
      .go({ pages: 'all', consistent: true });
    if (data.length) queued[queue] = data.length;
  }
  const streamBehind = await streamRecordsBehind(options.endpoint, options.tableName, options.dataDir);
  let ladderDue = 0;
  // A disabled endpoint's deliveries wait for it to be enabled again: not work left to do.
  const live = new Set<string>();
  for (const tenantId of new Set(options.endpoints.map((e) => e.tenantId))) {
    for (const endpoint of await listLiveEndpoints(tenantId)) live.add(endpoint.id);
  }
  for (const { tenantId, endpointId } of options.endpoints.filter((e) => live.has(e.endpointId))) {
    const pending = await queryDeliveriesSince(tenantId, endpointId, 'pending', options.since);
    ladderDue += pending.filter(
      (d) => Date.parse(d.nextAttemptAt ?? d.createdAt) <= options.drainEndsAt,
    ).length;
  }
  return Object.keys(queued).length || streamBehind || ladderDue
    ? { queued, streamBehind, ladderDue }
    : undefined;
}

export function describeUnsettled(state: Unsettled): string {
  const queues = Object.entries(state.queued).map(([q, n]) => `${n} on ${q}`);
  return [
    ...queues,
    ...(state.streamBehind ? [`${state.streamBehind} stream records unread`] : []),
    ...(state.ladderDue ? [`${state.ladderDue} deliveries due on the ladder`] : []),
  ].join(', ');
}
