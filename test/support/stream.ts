import type { DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';
import { inject } from 'vitest';
import { handler as streamConsumer } from '../../functions/streams/consumer.ts';
import { type ParkedRecord, startStreamPoller } from '../../scripts/local/stream-poller.ts';
import { asFunction, WORKER_ENTRIES } from './aws-operations.ts';

/**
 * The consumer as the function it is on AWS: its DynamoDB calls are the code under test's, so the
 * fault injection answers them as it answers a handler's (stale reads, and the faults the caller
 * sees itself when the run turns them on), and what it does is recorded under its entry.
 */
const consumer = asFunction(WORKER_ENTRIES.streamConsumer, streamConsumer);

/**
 * How often a test's stream poller reads a shard that has nothing new: Lambda's own rate for a
 * DynamoDB stream (four times a second). Every test file's poller reads the one shared stream, and
 * each empty read costs DynamoDB Local CPU: at 100 ms an idle poller kept about a seventh of a core
 * busy, on a two-core machine that runs six test files at once. A shard with records is read again
 * at once, whatever this says.
 */
export const TEST_STREAM_POLL_MS = 250;

/** How often a test's queue poller looks for messages: as often as its stream poller. */
export const TEST_QUEUE_POLL_MS = TEST_STREAM_POLL_MS;

export interface TestStreamConsumer {
  /** Every record handed to the consumer so far (to replay one). */
  delivered: DynamoDBRecord[];
  parked: ParkedRecord[];
  stop: () => void;
}

/**
 * The real stream consumer behind the real local poller, on the test run's shared table. The one
 * table serves every test file at once, so only records of `tenantIds` (their keys start with
 * `t#<tenantId>`) reach this file's consumer: other files' changes are theirs to process.
 */
export async function startTestStreamConsumer(tenantIds: string[]): Promise<TestStreamConsumer> {
  const prefixes = tenantIds.map((id) => `t#${id}`);
  const mine = (record: DynamoDBRecord) => {
    const pk = record.dynamodb?.Keys?.pk?.S ?? '';
    return prefixes.some((p) => pk === p || pk.startsWith(`${p}#`));
  };
  const delivered: DynamoDBRecord[] = [];
  const parked: ParkedRecord[] = [];
  const poller = startStreamPoller({
    endpoint: inject('dynamoEndpoint'),
    tableName: inject('tableName'),
    intervalMs: TEST_STREAM_POLL_MS,
    // Three failed deliveries of a record, then the on-failure destination (AWS: 10 retries).
    mapping: { retryAttempts: 2 },
    initialPosition: 'LATEST',
    handler: async (event: DynamoDBStreamEvent) => {
      const records = event.Records.filter(mine);
      delivered.push(...records);
      return consumer({ Records: records });
    },
    onParked: (record) => parked.push(record),
  });
  await poller.ready;
  return { delivered, parked, stop: poller.stop };
}
