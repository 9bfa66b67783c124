import { DescribeTableCommand } from '@aws-sdk/client-dynamodb';
import {
  DescribeStreamCommand,
  DynamoDBStreamsClient,
  GetRecordsCommand,
  GetShardIteratorCommand,
} from '@aws-sdk/client-dynamodb-streams';
import type { DynamoDBStreamEvent } from 'aws-lambda';
import { localClient } from './dynamo-local.ts';

type StreamHandler = (
  event: DynamoDBStreamEvent,
) => Promise<{ batchItemFailures: { itemIdentifier: string }[] }>;

/**
 * Plays Lambda's part for the stream consumer locally: polls every shard of the table's stream on
 * DynamoDB Local and hands the records, in order, to the same handler module Lambda runs.
 */
export function startStreamPoller(options: {
  endpoint: string;
  tableName: string;
  handler: StreamHandler;
  intervalMs?: number;
  onError?: (error: unknown) => void;
}): { stop: () => void } {
  const streams = new DynamoDBStreamsClient({
    endpoint: options.endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
  const iterators = new Map<string, string | undefined>();
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;

  async function discoverShards(streamArn: string): Promise<void> {
    const { StreamDescription } = await streams.send(new DescribeStreamCommand({ StreamArn: streamArn }));
    for (const shard of StreamDescription?.Shards ?? []) {
      if (!shard.ShardId || iterators.has(shard.ShardId)) continue;
      const { ShardIterator } = await streams.send(
        new GetShardIteratorCommand({
          StreamArn: streamArn,
          ShardId: shard.ShardId,
          ShardIteratorType: 'LATEST',
        }),
      );
      iterators.set(shard.ShardId, ShardIterator);
    }
  }

  async function poll(): Promise<void> {
    const { Table } = await localClient(options.endpoint).send(
      new DescribeTableCommand({ TableName: options.tableName }),
    );
    const streamArn = Table?.LatestStreamArn;
    if (!streamArn) return;
    await discoverShards(streamArn);
    for (const [shardId, iterator] of iterators) {
      if (!iterator) continue;
      const { Records, NextShardIterator } = await streams.send(
        new GetRecordsCommand({ ShardIterator: iterator, Limit: 100 }),
      );
      iterators.set(shardId, NextShardIterator);
      if (Records?.length) {
        await options.handler({
          Records: Records.map((r) => ({
            ...r,
            eventSourceARN: streamArn,
          })) as DynamoDBStreamEvent['Records'],
        });
      }
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
    stop: () => {
      stopped = true;
      if (timer) clearTimeout(timer);
    },
  };
}
