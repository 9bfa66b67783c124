/**
 * The stream consumer under the fault model's stale reads: every non-consistent read it
 * makes is answered as of a minute ago. A consumer that read what a change's event needs (the
 * Inquiry's Lead, a listing's Areas) eventually consistently would then build an event from a
 * resource that does not exist yet; the consumer reads them strongly consistently, and its events
 * carry the resources as they are.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withDynamoFaults } from '../../scripts/local/dynamodb-faults.ts';
import { eventually } from '../support/eventually.ts';
import { createTestTenant, type TestTenant } from '../support/factories.ts';
import { startTestApi, type TestApi } from '../support/http.ts';
import { startTestStreamConsumer, type TestStreamConsumer } from '../support/stream.ts';

let api: TestApi;
let tenant: TestTenant;
let consumer: TestStreamConsumer;

beforeAll(async () => {
  tenant = await createTestTenant();
  api = await startTestApi(tenant.key);
  // Started inside the scope: every call the poller's consumer makes is in it, and so stale.
  consumer = await withDynamoFaults({ staleRate: 1, staleMs: 60_000 }, () =>
    startTestStreamConsumer([tenant.tenantId]),
  );
});
afterAll(async () => {
  consumer.stop();
  await api.close();
});

describe('the stream consumer, every eventually consistent read a minute stale', () => {
  it("writes inquiry.created with the Inquiry's Lead as it is, read consistently", async () => {
    // Prepare
    const ingested = await api.call('POST', '/v1/leads:ingest', {
      body: {
        source: 'stale-test',
        type: 'inquiry',
        person: { name: 'Stale Reader', email: `stale-${Date.now()}@example.com` },
        message: 'Still there?',
      },
    });
    expect(ingested.status).toBe(201);
    const leadId = ingested.body.lead.id as string;
    // Act
    const events = await eventually(
      async () =>
        (await api.call('GET', '/v1/events?type=inquiry.created')).body.data as Record<string, unknown>[],
      (data) => data.some((e) => (e.data as { id: string }).id === ingested.body.inquiry_id),
      { timeoutMs: 30_000, intervalMs: 250 },
    );
    // Assess
    const event = events.find((e) => (e.data as { id: string }).id === ingested.body.inquiry_id);
    const data = event?.data as { lead: { id: string; email: string } | null } | undefined;
    expect(data?.lead).toMatchObject({
      id: leadId,
      email: ingested.body.lead.email,
    });
  });
});
