import type { DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';
import { inject } from 'vitest';
import { handler as streamConsumer } from '../../functions/streams/consumer.ts';
import { type ParkedRecord, startStreamPoller } from '../../scripts/local/stream-poller.ts';
import { TEST_STREAM_POLL_MS } from './stream.ts';

export interface FollowingStreamConsumer {
  /** From now on, this Tenant's changes reach the consumer (its reactions: emails, scoring…). */
  follow: (tenantId: string) => void;
  parked: ParkedRecord[];
  stop: () => void;
}

/**
 * The real stream consumer behind the real local poller, for a test file whose Tenants are made as
 * its tests go: each test `follow`s the Tenants it makes. The one table serves every test file at
 * once, so only the followed Tenants' records (keys starting `t#<tenantId>`) reach this consumer.
 */
export async function startFollowingStreamConsumer(): Promise<FollowingStreamConsumer> {
  const followed = new Set<string>();
  const mine = (record: DynamoDBRecord) => {
    const pk = record.dynamodb?.Keys?.pk?.S ?? '';
    const tenantId = /^t#([^#]+)/.exec(pk)?.[1];
    return tenantId !== undefined && followed.has(tenantId);
  };
  const parked: ParkedRecord[] = [];
  const poller = startStreamPoller({
    endpoint: inject('dynamoEndpoint'),
    tableName: inject('tableName'),
    intervalMs: TEST_STREAM_POLL_MS,
    // Three failed deliveries of a record, then the on-failure destination (AWS: 10 retries).
    mapping: { retryAttempts: 2 },
    initialPosition: 'LATEST',
    handler: (event: DynamoDBStreamEvent) => streamConsumer({ Records: event.Records.filter(mine) }),
    onParked: (record) => parked.push(record),
  });
  await poller.ready;
  return { follow: (tenantId) => followed.add(tenantId), parked, stop: poller.stop };
}
