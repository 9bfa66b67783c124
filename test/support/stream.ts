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
    intervalMs: 100,
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
