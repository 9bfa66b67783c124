import type { DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';
import { inject } from 'vitest';
import { handler as streamConsumer } from '../../functions/streams/consumer.ts';
import { type ParkedRecord, startStreamPoller } from '../../scripts/local/stream-poller.ts';

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
      return streamConsumer({ Records: records });
    },
    onParked: (record) => parked.push(record),
  });
  await poller.ready;
  return { delivered, parked, stop: poller.stop };
}
