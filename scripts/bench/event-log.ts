/**
 * The events log in the bench (issue 10): events per second through the stream consumer. One
 * Tenant, `records` Lead status moves handed to the real consumer handler as DynamoDB stream
 * records (MODIFY, old and new images as the table stores them), in batches of `batchSize` as
 * Lambda's event source delivers them. Each move derives two events (lead.updated and
 * lead.status_changed) and writes each once; the figure counts the events found in the log after.
 *
 * (scripts/bench/events.ts is the API Gateway event builder of the other sections, hence this name.)
 * Like the other sections, every functions/ module is imported dynamically: main.ts sets the
 * environment (localHandlerEnv) first.
 */
import { randomUUID } from 'node:crypto';
import { marshall } from '@aws-sdk/util-dynamodb';
import type { DynamoDBRecord } from 'aws-lambda';
import type { LeadRecord } from '../../functions/data/leads.ts';

export interface EventThroughput {
  records: number;
  batches: number;
  events: number;
  seconds: number;
  eventsPerSecond: number;
  recordsPerSecond: number;
}

/** Measures the consumer on `records` Lead status moves (default 400, batches of 100). */
export async function measureEventThroughput(
  options: { records?: number; batchSize?: number } = {},
): Promise<EventThroughput> {
  const records = options.records ?? 400;
  const batchSize = options.batchSize ?? 100;
  const { createTenantFromAdmin } = await import('../../functions/services/tenants.ts');
  const { Lead } = await import('../../functions/data/entities/lead.ts');
  const { queryEvents } = await import('../../functions/data/events.ts');
  const { handler } = await import('../../functions/streams/consumer.ts');

  const tenant = await createTenantFromAdmin({
    slug: `bench-events-${randomUUID().slice(0, 8)}`,
    name: 'Bench Events',
  });
  const startedAt = new Date().toISOString();
  const item = (lead: LeadRecord) => Lead.put(lead).params<{ Item: Record<string, unknown> }>().Item;
  const stream: DynamoDBRecord[] = [];
  for (let i = 0; i < records; i++) {
    const base: LeadRecord = {
      tenantId: tenant.tenantId,
      id: randomUUID(),
      name: `Bench Lead ${i}`,
      email: `lead${i}@bench.example`,
      status: 'new',
      source: 'api',
      ownerKey: 'unassigned',
      tierKey: 'unscored',
      isActive: true,
      createdAt: startedAt,
      updatedAt: startedAt,
    };
    stream.push({
      eventID: randomUUID(),
      eventName: 'MODIFY',
      dynamodb: {
        SequenceNumber: String(i + 1).padStart(21, '0'),
        OldImage: marshall(item(base), { removeUndefinedValues: true }) as never,
        NewImage: marshall(item({ ...base, status: 'contacted', updatedAt: new Date().toISOString() }), {
          removeUndefinedValues: true,
        }) as never,
      },
    });
  }

  const began = performance.now();
  let batches = 0;
  for (let i = 0; i < stream.length; i += batchSize) {
    const result = await handler({ Records: stream.slice(i, i + batchSize) });
    if (result.batchItemFailures.length) throw new Error('the consumer reported failed records');
    batches++;
  }
  const seconds = (performance.now() - began) / 1000;

  let events = 0;
  let after: { createdAt: string; id: string } | undefined;
  for (;;) {
    const page = await queryEvents({
      tenantId: tenant.tenantId,
      partition: { group: 'leads' },
      after,
      from: '0',
      limit: 200,
    });
    events += page.length;
    const last = page.at(-1);
    if (!last || page.length < 200) break;
    after = { createdAt: last.createdAt, id: last.id };
  }
  return {
    records,
    batches,
    events,
    seconds: Math.round(seconds * 1000) / 1000,
    eventsPerSecond: Math.round(events / seconds),
    recordsPerSecond: Math.round(records / seconds),
  };
}
