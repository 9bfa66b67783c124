import type { SQSEvent } from 'aws-lambda';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { chargeSpend, spentThisMonthUsd } from '../../functions/data/ai-spend.ts';
import { getLead } from '../../functions/data/leads.ts';
import { costUsd, spendMonth } from '../../functions/domain/enrichment.ts';
import { tierOf } from '../../functions/domain/leads.ts';
import type { Score, ScoringInput } from '../../functions/domain/scoring.ts';
import { config } from '../../functions/kernel/config.ts';
import type { ScoreMessage } from '../../functions/kernel/messages/ai-queue.ts';
import { ProviderError } from '../../functions/kernel/ports/ai.ts';
import { type QueueName, type QueuePort, setQueue } from '../../functions/kernel/ports/queue.ts';
import {
  LocalScoringProvider,
  type ScoringProvider,
  setScoringProvider,
} from '../../functions/kernel/ports/scoring.ts';
import { scoreLead } from '../../functions/services/scoring.ts';
import { handler as aiWorkerHandler } from '../../functions/workers/ai.ts';
import { bindLocalAdapters } from '../../scripts/local/adapters/index.ts';
import { asFunction, WORKER_ENTRIES } from '../support/aws-operations.ts';
import { afterIndexLag } from '../support/eventually.ts';
import { createTestTenant, type TestTenant, unique } from '../support/factories.ts';
import { startTestApi, type TestApi } from '../support/http.ts';
import { type FollowingStreamConsumer, startFollowingStreamConsumer } from '../support/reactions.ts';

/** Run as its function, so that what it does on AWS is checked against its role (permissions.test.ts). */
const aiWorker = asFunction(WORKER_ENTRIES.aiWorker, aiWorkerHandler);

/** A queue that records what is sent instead of sending it. */
class RecordingQueue implements QueuePort {
  sent: { queue: QueueName; message: { type: string } & Record<string, unknown> }[] = [];
  async send(queue: QueueName, message: unknown) {
    this.sent.push({ queue, message: message as RecordingQueue['sent'][number]['message'] });
  }
  /** The scoring requests only (creating a listing queues enrichment on the same queue). */
  scores(): ScoreMessage[] {
    return this.sent
      .filter((s) => s.queue === 'ai' && s.message.type === 'score')
      .map((s) => s.message as never);
  }
}

/** A provider with a fixed answer and token usage, recording what it was given. */
class FixedProvider implements ScoringProvider {
  readonly name = 'fixed';
  inputs: ScoringInput[] = [];
  readonly answer: Omit<Score, 'tier'>;
  readonly usage: { inputTokens: number; outputTokens: number };
  constructor(answer: Omit<Score, 'tier'>, usage = { inputTokens: 1200, outputTokens: 300 }) {
    this.answer = answer;
    this.usage = usage;
  }
  async score(input: ScoringInput) {
    this.inputs.push(input);
    return { score: { ...this.answer, tier: tierOf(this.answer.score) }, usage: this.usage };
  }
}

let api: TestApi;
let tenant: TestTenant;
let recorder: RecordingQueue;

/** Scoring requests are a stream reaction: the real consumer runs it for this file's Tenants. */
let reactions: FollowingStreamConsumer;

/** A Tenant whose changes the stream consumer follows. */
async function followedTenant(): Promise<TestTenant> {
  const made = await createTestTenant();
  reactions.follow(made.tenantId);
  return made;
}

beforeAll(async () => {
  reactions = await startFollowingStreamConsumer();
  tenant = await followedTenant();
  api = await startTestApi(tenant.key);
});
afterAll(async () => {
  reactions.stop();
  await api.close();
});

/** Waits until the reaction queued the scoring request of `leadId` asked at `requestedAt`. */
async function scoringQueued(leadId: string, requestedAt: string): Promise<void> {
  await vi.waitFor(
    () =>
      expect(
        recorder.scores().filter((m) => m.leadId === leadId && m.requestedAt === requestedAt),
      ).toHaveLength(1),
    { timeout: 20_000, interval: 100 },
  );
}
beforeEach(() => {
  recorder = new RecordingQueue();
  setQueue(recorder);
});
afterEach(() => {
  bindLocalAdapters();
});

const email = () => `${unique('buyer')}@example.com`;
const month = () => spendMonth(new Date());

/** The SQS event the worker gets for these messages. */
function sqsEvent(...messages: unknown[]): SQSEvent {
  return {
    Records: messages.map((m, i) => ({
      messageId: `m-${i + 1}`,
      receiptHandle: `r-${i + 1}`,
      body: JSON.stringify(m),
      attributes: {
        ApproximateReceiveCount: '1',
        SentTimestamp: String(Date.now()),
        SenderId: 'test',
        ApproximateFirstReceiveTimestamp: String(Date.now()),
      },
      messageAttributes: {},
      md5OfBody: '',
      eventSource: 'aws:sqs',
      eventSourceARN: 'arn:aws:sqs:us-east-1:000000000000:ai',
      awsRegion: 'us-east-1',
    })),
  };
}

async function ingest(body: Record<string, unknown>, key = tenant.key) {
  const res = await api.call('POST', '/v1/leads:ingest', { key, body });
  expect([200, 201], res.text).toContain(res.status);
  const ingested = res.body as { lead: { id: string; updated_at: string }; inquiry_id: string | null };
  if (ingested.inquiry_id) {
    // An Inquiry asks for scoring, with its own time: wait for the reaction to queue it.
    const inquiry = await api.call('GET', `/v1/inquiries/${ingested.inquiry_id}`, { key });
    await scoringQueued(ingested.lead.id, inquiry.body.created_at);
  }
  return ingested;
}

async function lead(id: string, key = tenant.key) {
  const res = await api.call('GET', `/v1/leads/${id}`, { key });
  expect(res.status, res.text).toBe(200);
  return res.body;
}

/** Ids of the Tenant's Leads under a tier filter (all pages). */
async function idsInTier(tier: string, key = tenant.key): Promise<string[]> {
  const ids: string[] = [];
  let cursor: string | null = null;
  do {
    const query: string = `tier=${tier}&limit=200${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
    const res = await api.call('GET', `/v1/leads?${query}`, { key });
    expect(res.status, res.text).toBe(200);
    ids.push(...(res.body.data as { id: string }[]).map((l) => l.id));
    cursor = res.body.next_cursor;
  } while (cursor);
  return ids;
}

/** A sale listing at 450,000 EUR. */
async function saleListing(key = tenant.key): Promise<string> {
  const res = await api.call('POST', '/v1/properties', {
    key,
    body: {
      title: `Sea view villa ${unique('v')}`,
      listing_type: 'sale',
      property_type: 'villa',
      bedrooms: 3,
      price: '450000',
      currency: 'EUR',
    },
  });
  expect(res.status, res.text).toBe(201);
  return res.body.id;
}

describe('scoring: queued on the request path, run by the AI worker', () => {
  it('scores an ingested inquiry in the worker: fields on the Lead, the tier index kept in step, rescored on a criteria change', async () => {
    // Prepare: an inquiry about a 450,000 EUR sale listing, with email, phone and a message
    const propertyId = await saleListing();
    const ingested = await ingest({
      source: 'website',
      type: 'inquiry',
      person: { name: 'Ana Torres', email: email(), phone: '+34600123456' },
      message: 'We want to retire by the sea',
      property_id: propertyId,
    });
    const id = ingested.lead.id;
    const before = await lead(id);
    // Assess: queued, not scored on the request path; the message names the Inquiry (the worker
    // reads it by id, as the Lead's inquiry index may not hold it yet)
    expect(recorder.scores()).toEqual([
      {
        type: 'score',
        tenantId: tenant.tenantId,
        leadId: id,
        requestedAt: expect.any(String),
        inquiryId: ingested.inquiry_id,
      },
    ]);
    expect(before).toMatchObject({
      score: null,
      score_tier: null,
      buyer_type: null,
      recommended_action: null,
      score_reasons: [],
      scored_at: null,
    });
    await afterIndexLag(); // the tier list is an index: it follows the write
    expect(await idsInTier('unscored')).toContain(id);

    // Act: the worker runs the queued message (local rules: no AI model configured)
    const result = await aiWorker(sqsEvent(...recorder.scores()));
    // Assess: recency 30 + completeness 20 + one inquiry 6 = 56
    expect(result.batchItemFailures).toEqual([]);
    const scored = await lead(id);
    expect(scored).toMatchObject({
      score: 56,
      score_tier: 'moderate',
      buyer_type: 'retiree',
      recommended_action: 'nurture_sequence',
      scored_at: expect.any(String),
    });
    expect(scored.score_reasons).toEqual(
      expect.arrayContaining(['Got in touch today', 'Both email and phone known']),
    );
    expect(scored.updated_at > before.updated_at).toBe(true);
    expect(scored.scored_at).toBe(scored.updated_at);
    await afterIndexLag(); // the tier list is an index: it follows the write
    expect(await idsInTier('moderate')).toContain(id);
    expect(await idsInTier('unscored')).not.toContain(id);
    expect(await idsInTier('hot,cold')).not.toContain(id);

    // Act: criteria that the asked listing fits (budget 15) with four criteria (specificity 12)
    recorder.sent.length = 0;
    const put = await api.call('PUT', `/v1/leads/${id}/criteria`, {
      body: {
        listing_type: 'sale',
        max_price: '500000',
        currency: 'EUR',
        min_beds: 2,
        property_types: ['villa'],
      },
    });
    // Assess: rescoring queued (by the criteria write's reaction), not run
    expect(put.status, put.text).toBe(200);
    await scoringQueued(id, put.body.updated_at);
    expect(recorder.scores()).toEqual([
      { type: 'score', tenantId: tenant.tenantId, leadId: id, requestedAt: expect.any(String) },
    ]);
    expect((await lead(id)).score).toBe(56);

    // Act
    const rescore = await aiWorker(sqsEvent(...recorder.scores()));
    // Assess: 56 + 15 + 12 = 83, hot; the Lead moved from one tier partition to the other
    expect(rescore.batchItemFailures).toEqual([]);
    const rescored = await lead(id);
    expect(rescored).toMatchObject({
      score: 83,
      score_tier: 'hot',
      buyer_type: 'retiree',
      recommended_action: 'call_immediately',
    });
    expect(rescored.score_reasons).toEqual(
      expect.arrayContaining(['Budget covers the listings asked about', 'Specific search criteria']),
    );
    expect(rescored.scored_at > scored.scored_at).toBe(true);
    await afterIndexLag(); // the tier list is an index: it follows the write
    expect(await idsInTier('hot')).toContain(id);
    expect(await idsInTier('moderate')).not.toContain(id);
  });

  it('queues scoring for a registration and for each new inquiry of a known Lead, not for a note', async () => {
    // Prepare
    const address = email();
    // Act
    const registration = await ingest({
      source: 'portal',
      type: 'registration',
      person: { name: 'Bo', email: address },
    });
    const again = await ingest({ source: 'portal', type: 'inquiry', person: { name: 'Bo', email: address } });
    const note = await ingest({
      source: 'crm',
      type: 'note',
      person: { name: 'Bo', email: address },
      message: 'Hi',
    });
    // Assess
    expect(again.lead.id).toBe(registration.lead.id);
    expect(note.lead.id).toBe(registration.lead.id);
    expect(recorder.scores().map((m) => m.leadId)).toEqual([registration.lead.id, registration.lead.id]);
  });

  it('uses the newest inquiry by when it happened, not the one written last (a backfill)', async () => {
    // Prepare: an inquiry today, then one from 60 days ago imported afterwards
    const address = email();
    const today = await ingest({ source: 'web', type: 'inquiry', person: { name: 'Cy', email: address } });
    await ingest({
      source: 'import',
      type: 'inquiry',
      person: { name: 'Cy', email: address },
      occurred_at: new Date(Date.now() - 60 * 86_400_000).toISOString(),
    });
    // Act
    await scoreLead(recorder.scores()[1]!);
    // Assess: recency 30 + email 8 + two inquiries 12
    const scored = await lead(today.lead.id);
    expect(scored.score_reasons).toContain('Got in touch today');
    expect(scored.score).toBe(50);
  });
});

describe('scoring: failures', () => {
  it('reports a failing provider as a batch item failure (SQS retries it) and leaves the Lead unscored', async () => {
    // Prepare
    const ingested = await ingest({ source: 'web', type: 'inquiry', person: { name: 'Di', email: email() } });
    const [message] = recorder.scores();
    let calls = 0;
    setScoringProvider({
      name: 'failing',
      score: async () => {
        calls++;
        throw new ProviderError('model unavailable');
      },
    });
    const spent = await spentThisMonthUsd(tenant.tenantId, month());
    // Act: the failing message next to a malformed one (dropped, not retried)
    const result = await aiWorker(sqsEvent(message, { type: 'score', leadId: 'x' }));
    // Assess
    expect(calls).toBe(1);
    expect(result.batchItemFailures).toEqual([{ itemIdentifier: 'm-1' }]);
    const after = await lead(ingested.lead.id);
    expect(after).toMatchObject({ score: null, score_tier: null, scored_at: null, score_reasons: [] });
    expect(after.updated_at).toBe(ingested.lead.updated_at);
    await afterIndexLag(); // the tier list is an index: it follows the write
    expect(await idsInTier('unscored')).toContain(ingested.lead.id);
    expect(await spentThisMonthUsd(tenant.tenantId, month())).toBe(spent);

    // Act: the retry, once the provider is back
    setScoringProvider(new LocalScoringProvider());
    const retry = await aiWorker(sqsEvent(message));
    // Assess
    expect(retry.batchItemFailures).toEqual([]);
    expect((await lead(ingested.lead.id)).score).toEqual(expect.any(Number));
  });

  it('ignores a score message for an unknown Lead or Tenant', async () => {
    // Prepare
    const provider = new FixedProvider({
      score: 90,
      buyer_type: 'investor',
      recommended_action: 'call_immediately',
      reasons: ['x'],
    });
    setScoringProvider(provider);
    const requestedAt = new Date().toISOString();
    // Act
    const result = await aiWorker(
      sqsEvent(
        { type: 'score', tenantId: tenant.tenantId, leadId: crypto.randomUUID(), requestedAt },
        { type: 'score', tenantId: crypto.randomUUID(), leadId: crypto.randomUUID(), requestedAt },
      ),
    );
    // Assess
    expect(result.batchItemFailures).toEqual([]);
    expect(provider.inputs).toHaveLength(0);
  });

  it("does not score a Lead of another Tenant's message", async () => {
    // Prepare
    const other = await followedTenant();
    const ingested = await ingest({ source: 'web', type: 'inquiry', person: { name: 'Ed', email: email() } });
    // Act
    await scoreLead({ ...recorder.scores()[0]!, tenantId: other.tenantId });
    // Assess
    expect((await getLead(tenant.tenantId, ingested.lead.id))?.score).toBeUndefined();
  });
});

describe('scoring: AI spend', () => {
  const answer: Omit<Score, 'tier'> = {
    score: 64,
    buyer_type: 'investor',
    recommended_action: 'send_comps',
    reasons: ['Asked twice this week'],
  };

  it("charges a provider's token usage to the Tenant's AI spend and writes its answer", async () => {
    // Prepare
    const agency = await followedTenant();
    const ingested = await ingest(
      {
        source: 'web',
        type: 'inquiry',
        person: { name: 'Fay', email: email() },
        message: 'For rental income',
      },
      agency.key,
    );
    const provider = new FixedProvider(answer, { inputTokens: 1200, outputTokens: 300 });
    setScoringProvider(provider);
    const { AI_PRICE_INPUT_PER_1K_USD: input, AI_PRICE_OUTPUT_PER_1K_USD: output } = config();
    const expected = costUsd({ inputTokens: 1200, outputTokens: 300 }, { input, output });
    // Act
    const result = await aiWorker(sqsEvent(recorder.scores()[0]));
    // Assess
    expect(result.batchItemFailures).toEqual([]);
    expect(provider.inputs).toHaveLength(1);
    expect(provider.inputs[0]?.inquiries[0]?.message).toBe('For rental income');
    expect(expected).toBeGreaterThan(0);
    expect(await spentThisMonthUsd(agency.tenantId, month())).toBeCloseTo(expected, 6);
    expect(await lead(ingested.lead.id, agency.key)).toMatchObject({
      score: 64,
      score_tier: 'warm',
      buyer_type: 'investor',
      recommended_action: 'send_comps',
      score_reasons: ['Asked twice this week'],
    });
    await afterIndexLag(); // the tier list is an index
    expect(await idsInTier('warm', agency.key)).toEqual([ingested.lead.id]);
  });

  it('charges a message once: its redelivery neither calls the provider nor charges again', async () => {
    // Prepare
    const agency = await followedTenant();
    const ingested = await ingest(
      { source: 'web', type: 'inquiry', person: { name: 'Hal', email: email() } },
      agency.key,
    );
    const provider = new FixedProvider(answer, { inputTokens: 1000, outputTokens: 100 });
    setScoringProvider(provider);
    const { AI_PRICE_INPUT_PER_1K_USD: input, AI_PRICE_OUTPUT_PER_1K_USD: output } = config();
    const once = costUsd({ inputTokens: 1000, outputTokens: 100 }, { input, output });
    const message = recorder.scores()[0];
    // Act: SQS delivers the same message twice (a visibility timeout, an at-least-once duplicate)
    const first = await aiWorker(sqsEvent(message));
    const again = await aiWorker(sqsEvent(message));
    // Assess
    expect([first.batchItemFailures, again.batchItemFailures]).toEqual([[], []]);
    expect(provider.inputs).toHaveLength(1);
    expect(await spentThisMonthUsd(agency.tenantId, month())).toBeCloseTo(once, 6);
    expect((await lead(ingested.lead.id, agency.key)).score).toBe(64);
  });

  it('charges two deliveries that run at once only once, for the one result written', async () => {
    // Prepare
    const agency = await followedTenant();
    await ingest({ source: 'web', type: 'inquiry', person: { name: 'Ida', email: email() } }, agency.key);
    const message = recorder.scores()[0]!;
    const fixed = new FixedProvider(answer, { inputTokens: 1000, outputTokens: 100 });
    let nested: Promise<unknown> | undefined;
    // The first run's model call lasts while a duplicate delivery runs to its end.
    setScoringProvider({
      name: 'slow',
      score: async (scoring) => {
        if (!nested) {
          nested = scoreLead(message);
          await nested;
        }
        return fixed.score(scoring);
      },
    });
    const { AI_PRICE_INPUT_PER_1K_USD: input, AI_PRICE_OUTPUT_PER_1K_USD: output } = config();
    const once = costUsd({ inputTokens: 1000, outputTokens: 100 }, { input, output });
    // Act
    await scoreLead(message);
    // Assess: both runs called the model; the Tenant pays for one result
    expect(fixed.inputs).toHaveLength(2);
    expect(await spentThisMonthUsd(agency.tenantId, month())).toBeCloseTo(once, 6);
  });

  it('charges nothing when the result cannot be written, and SQS retries the message', async () => {
    // Prepare
    const agency = await followedTenant();
    const ingested = await ingest(
      { source: 'web', type: 'inquiry', person: { name: 'Jo', email: email() } },
      agency.key,
    );
    // A buyer type the Lead's model refuses: the write fails after the model was paid for.
    setScoringProvider(
      new FixedProvider(
        { ...answer, buyer_type: 'speculator' as never },
        { inputTokens: 900, outputTokens: 90 },
      ),
    );
    // Act
    const result = await aiWorker(sqsEvent(recorder.scores()[0]));
    // Assess
    expect(result.batchItemFailures).toEqual([{ itemIdentifier: 'm-1' }]);
    expect((await lead(ingested.lead.id, agency.key)).score).toBeNull();
    expect(await spentThisMonthUsd(agency.tenantId, month())).toBe(0);
  });

  it('charges nothing for the local rules (0 tokens)', async () => {
    // Prepare
    const agency = await followedTenant();
    const ingested = await ingest(
      { source: 'web', type: 'inquiry', person: { name: 'Gil', email: email() } },
      agency.key,
    );
    // Act
    await aiWorker(sqsEvent(recorder.scores()[0]));
    // Assess
    expect((await lead(ingested.lead.id, agency.key)).score).toBe(44);
    expect(await spentThisMonthUsd(agency.tenantId, month())).toBe(0);
  });

  it('scores by the local rules, charging nothing, when the Tenant switched AI off or is at its ceiling', async () => {
    // Prepare
    const off = await followedTenant();
    await off.update({ aiEnabled: false });
    const capped = await followedTenant();
    await capped.update({ aiMonthlyLimitUsd: 1 });
    await chargeSpend(capped.tenantId, month(), 1, { inputTokens: 1, outputTokens: 1 });
    const leads = [];
    for (const agency of [off, capped]) {
      const ingested = await ingest(
        { source: 'web', type: 'inquiry', person: { name: 'Hu', email: email() } },
        agency.key,
      );
      leads.push({ agency, id: ingested.lead.id });
    }
    const provider = new FixedProvider(answer);
    setScoringProvider(provider);
    // Act
    const result = await aiWorker(sqsEvent(...recorder.scores()));
    // Assess: the local rules' score (recency 30, email 8, one inquiry 6)
    expect(result.batchItemFailures).toEqual([]);
    expect(provider.inputs).toHaveLength(0);
    for (const { agency, id } of leads) {
      expect((await lead(id, agency.key)).score).toBe(44);
    }
    expect(await spentThisMonthUsd(off.tenantId, month())).toBe(0);
    expect(await spentThisMonthUsd(capped.tenantId, month())).toBe(1);
  });

  it('uses the provider again under the ceiling', async () => {
    // Prepare
    const agency = await followedTenant();
    await agency.update({ aiMonthlyLimitUsd: 5 });
    await chargeSpend(agency.tenantId, month(), 1, { inputTokens: 1, outputTokens: 1 });
    const ingested = await ingest(
      { source: 'web', type: 'inquiry', person: { name: 'Ivo', email: email() } },
      agency.key,
    );
    const provider = new FixedProvider(answer);
    setScoringProvider(provider);
    // Act
    await aiWorker(sqsEvent(recorder.scores()[0]));
    // Assess
    expect(provider.inputs).toHaveLength(1);
    expect((await lead(ingested.lead.id, agency.key)).score).toBe(64);
    expect(await spentThisMonthUsd(agency.tenantId, month())).toBeGreaterThan(1);
  });
});

describe('scoring: one request, one result', () => {
  const answer: Omit<Score, 'tier'> = {
    score: 71,
    buyer_type: 'relocation',
    recommended_action: 'call_immediately',
    reasons: ['Asked for a viewing'],
  };

  /**
   * The Lead's `lead.scored` events once the consumer has caught up with the Lead: a last edit of
   * the Lead is written after every score, so its event comes after theirs on the item's shard.
   */
  async function scoredEvents(leadId: string, key: string): Promise<{ id: string }[]> {
    const marker = unique('caught-up');
    const patched = await api.call('PATCH', `/v1/leads/${leadId}`, { key, body: { notes: marker } });
    expect(patched.status, patched.text).toBe(200);
    const events = async () => {
      const res = await api.call('GET', '/v1/events?limit=200', { key });
      expect(res.status, res.text).toBe(200);
      return res.body.data as { id: string; type: string; data: { id: string; notes?: string } }[];
    };
    await vi.waitFor(
      async () =>
        expect((await events()).some((e) => e.data.id === leadId && e.data.notes === marker)).toBe(true),
      { timeout: 20_000, interval: 100 },
    );
    return (await events()).filter((e) => e.type === 'lead.scored' && e.data.id === leadId);
  }

  it('writes a request delivered twice at once once: one lead.scored, one charge', async () => {
    // Prepare
    const agency = await followedTenant();
    const ingested = await ingest(
      { source: 'web', type: 'inquiry', person: { name: 'Kim', email: email() } },
      agency.key,
    );
    const message = recorder.scores()[0]!;
    const fixed = new FixedProvider(answer, { inputTokens: 800, outputTokens: 80 });
    let duplicate: Promise<unknown> | undefined;
    // The first delivery's model call lasts while a duplicate delivery runs to its end.
    setScoringProvider({
      name: 'slow',
      score: async (scoring) => {
        if (!duplicate) {
          duplicate = scoreLead(message);
          await duplicate;
        }
        return fixed.score(scoring);
      },
    });
    const { AI_PRICE_INPUT_PER_1K_USD: input, AI_PRICE_OUTPUT_PER_1K_USD: output } = config();
    // Act
    await scoreLead(message);
    // Assess
    expect(await scoredEvents(ingested.lead.id, agency.key)).toHaveLength(1);
    expect(await spentThisMonthUsd(agency.tenantId, month())).toBeCloseTo(
      costUsd({ inputTokens: 800, outputTokens: 80 }, { input, output }),
      6,
    );
  });

  it('scores a request by the local rules once, however often it is delivered', async () => {
    // Prepare
    const agency = await followedTenant();
    const ingested = await ingest(
      { source: 'web', type: 'inquiry', person: { name: 'Lev', email: email() } },
      agency.key,
    );
    const message = recorder.scores()[0];
    // Act: the same message delivered again after the first run (SQS at-least-once)
    const first = await aiWorker(sqsEvent(message));
    const scoredAt = (await lead(ingested.lead.id, agency.key)).scored_at;
    const again = await aiWorker(sqsEvent(message));
    // Assess
    expect([first.batchItemFailures, again.batchItemFailures]).toEqual([[], []]);
    expect((await lead(ingested.lead.id, agency.key)).scored_at).toBe(scoredAt);
    expect(await scoredEvents(ingested.lead.id, agency.key)).toHaveLength(1);
    expect(await spentThisMonthUsd(agency.tenantId, month())).toBe(0);
  });
});
