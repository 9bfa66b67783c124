import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { ScoreMessage } from '../../functions/kernel/messages/ai-queue.ts';
import { type Email, setEmails } from '../../functions/kernel/ports/email.ts';
import { setQueue } from '../../functions/kernel/ports/queue.ts';
import { scoringRequest } from '../../functions/streams/reactions/scoring-request.ts';
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
/** Sends SES refuses for good (the sandbox's answer for an unverified recipient). */
let refusals = 0;
setEmails({
  send: async (email) => {
    attempts.push(email);
    if (refusals > 0) {
      refusals--;
      throw Object.assign(new Error('Email address is not verified (test)'), { name: 'MessageRejected' });
    }
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

  it('parks an email SES refuses for good instead of failing the record, which goes on', async () => {
    // Prepare: the next email is refused (SES sandbox, an unverified recipient)
    refusals = 1;
    // Act
    const leadId = await ingestInquiry('Sandbox Sara');
    await scoredOnce(leadId);
    // Assess: tried once, not retried, nothing in the outbox; the record's next reaction ran, nothing discarded
    expect(attempts.filter((a) => a.text.includes(leadId))).toHaveLength(1);
    expect((await listOutbox(tenant.tenantId)).filter((m) => m.text.includes(leadId))).toEqual([]);
    expect(scores.filter((s) => s.leadId === leadId)).toHaveLength(1);
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

describe('the scoring-request reaction', () => {
  it('asks for scoring on a new Inquiry and a criteria write, with their own times, not on other changes', async () => {
    // Prepare
    const ids = { tenantId: tenant.tenantId, leadId: `lead-${unique('s')}` };
    const change = (entity: string, kind: 'INSERT' | 'MODIFY', image: Record<string, unknown>) => ({
      eventId: unique('e'),
      kind,
      entity,
      oldImage: kind === 'MODIFY' ? image : undefined,
      newImage: image,
    });
    // Act
    await scoringRequest(change('inquiry', 'INSERT', { ...ids, createdAt: '2026-01-01T00:00:00.000Z' }));
    await scoringRequest(change('inquiry', 'MODIFY', { ...ids, createdAt: '2026-01-02T00:00:00.000Z' }));
    await scoringRequest(
      change('activity', 'INSERT', { ...ids, kind: 'note', createdAt: '2026-01-03T00:00:00.000Z' }),
    );
    await scoringRequest(change('leadCriteria', 'MODIFY', { ...ids, updatedAt: '2026-01-04T00:00:00.000Z' }));
    // Assess
    expect(scores.filter((m) => m.leadId === ids.leadId)).toEqual([
      { type: 'score', ...ids, requestedAt: '2026-01-01T00:00:00.000Z' },
      { type: 'score', ...ids, requestedAt: '2026-01-04T00:00:00.000Z' },
    ]);
  });
});

describe('the assignment notice', () => {
  it('emails the Agent the rule picked for a walk-in add once, and nobody for an Owner the client named', async () => {
    // Act
    const picked = await api.call('POST', '/v1/leads', {
      body: { name: 'Walk In', email: `${unique('w')}@example.com` },
    });
    const named = await api.call('POST', '/v1/leads', {
      body: { name: 'Named Owner', email: `${unique('w')}@example.com`, assigned_agent_id: agent.id },
    });
    // Then an Inquiry of the named one: its notice comes after the walk-in's in the stream
    const after = await api.call('POST', '/v1/leads:ingest', {
      body: { source: 'web', type: 'inquiry', person: { name: 'Named Owner', email: named.body.email } },
    });
    // Assess
    expect([picked.status, named.status, after.status]).toEqual([201, 201, 200]);
    const outbox = await vi.waitFor(
      async () => {
        const sent = await listOutbox(tenant.tenantId);
        expect(sent.filter((m) => m.text.includes(picked.body.id))).not.toEqual([]);
        expect(sent.filter((m) => m.text.includes(named.body.id))).not.toEqual([]);
        return sent;
      },
      { timeout: 20_000, interval: 100 },
    );
    expect(outbox.filter((m) => m.text.includes(picked.body.id))).toEqual([
      expect.objectContaining({ to: agent.email, subject: 'New lead assigned to you: Walk In' }),
    ]);
    expect(outbox.filter((m) => m.text.includes(named.body.id)).map((m) => m.subject)).toEqual([
      'New inquiry from Named Owner',
    ]);
  });
});
