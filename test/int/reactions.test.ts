import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { ScoreMessage } from '../../functions/kernel/messages/ai-queue.ts';
import { type Email, setEmails } from '../../functions/kernel/ports/email.ts';
import { setQueue } from '../../functions/kernel/ports/queue.ts';
import { bindLocalAdapters } from '../../scripts/local/adapters/index.ts';
import { listOutbox, OutboxEmailPort } from '../../scripts/local/adapters/outbox-email.ts';
import { createTestAgent, createTestTenant, type TestTenant, unique } from '../support/factories.ts';
import { startTestApi, type TestApi } from '../support/http.ts';
import { startTestStreamConsumer, type TestStreamConsumer } from '../support/stream.ts';

/**
 * The reactions of functions/streams/reactions run in the real stream consumer behind the local
 * stream poller (which retries a failed record as Lambda's event source does), on DynamoDB Local.
 */

let api: TestApi;
let tenant: TestTenant;
let agent: { id: string; email: string };
let consumer: TestStreamConsumer;

/** The local outbox, made to fail the sends that `failNext` asks for. */
const outbox = new OutboxEmailPort();
const attempts: Email[] = [];
let failures = 0;
setEmails({
  send: async (email) => {
    attempts.push(email);
    if (failures > 0) {
      failures--;
      throw new Error('SES is unavailable (test)');
    }
    await outbox.send(email);
  },
});

/** The AI queue, made to fail the sends `queueFailures` asks for; what it took is in `scores`. */
const scores: ScoreMessage[] = [];
let queueFailures = 0;
setQueue({
  send: async (_queue, message) => {
    if (queueFailures > 0) {
      queueFailures--;
      throw new Error('SQS is unavailable (test)');
    }
    if ((message as { type: string }).type === 'score') scores.push(message as ScoreMessage);
  },
});

beforeAll(async () => {
  tenant = await createTestTenant();
  agent = await createTestAgent(tenant.tenantId, 'Owner Agent');
  api = await startTestApi(tenant.key);
  consumer = await startTestStreamConsumer([tenant.tenantId]);
});
afterAll(async () => {
  consumer.stop();
  bindLocalAdapters();
  await api.close();
});

async function ingestInquiry(name: string): Promise<string> {
  const res = await api.call('POST', '/v1/leads:ingest', {
    body: { source: 'website', type: 'inquiry', person: { name, email: `${unique('r')}@example.com` } },
  });
  expect(res.status, res.text).toBe(201);
  return res.body.lead.id;
}

/** The record is done once its last reaction (the scoring request, after the email) went out. */
async function scoredOnce(leadId: string): Promise<void> {
  await vi.waitFor(() => expect(scores.filter((s) => s.leadId === leadId)).not.toHaveLength(0), {
    timeout: 20_000,
    interval: 100,
  });
}

describe('owner notification: a stream reaction, retried by the consumer, sent once', () => {
  it('retries a failed email with its stream record and sends it once', async () => {
    // Prepare: the next email send fails
    failures = 1;
    // Act
    const leadId = await ingestInquiry('Retry Rosa');
    await scoredOnce(leadId);
    // Assess: two attempts at one email, one in the outbox, nothing parked
    const tried = attempts.filter((a) => a.text.includes(leadId));
    expect(tried).toHaveLength(2);
    expect(tried[0]).toEqual(tried[1]);
    const sent = (await listOutbox(tenant.tenantId)).filter((m) => m.text.includes(leadId));
    expect(sent).toHaveLength(1);
    expect(sent[0]).toMatchObject({ to: agent.email, subject: 'New inquiry from Retry Rosa' });
    expect(consumer.parked).toEqual([]);
  });

  it('does not send the email again when a later reaction fails the record and it is retried', async () => {
    // Prepare: the scoring request (after the email) fails once
    queueFailures = 1;
    // Act
    const leadId = await ingestInquiry('Replay Ramon');
    await scoredOnce(leadId);
    // Assess: the email was sent on the first delivery and found its receipt on the retry
    expect(attempts.filter((a) => a.text.includes(leadId))).toHaveLength(1);
    expect((await listOutbox(tenant.tenantId)).filter((m) => m.text.includes(leadId))).toHaveLength(1);
    expect(scores.filter((s) => s.leadId === leadId)).toHaveLength(1);
    expect(consumer.parked).toEqual([]);
  });
});
