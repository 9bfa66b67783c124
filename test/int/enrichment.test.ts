import { marshall } from '@aws-sdk/util-dynamodb';
import type { DynamoDBRecord, DynamoDBStreamEvent, SQSEvent } from 'aws-lambda';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { PropertyCreateInput } from '../../functions/contract/properties.ts';
import { chargeSpend, spentThisMonthUsd } from '../../functions/data/ai-spend.ts';
import { dynamo } from '../../functions/data/client.ts';
import { getListing, type ListingRecord } from '../../functions/data/listings.ts';
import { getTenant, type TenantChanges } from '../../functions/data/tenants.ts';
import { costUsd, spendMonth } from '../../functions/domain/enrichment.ts';
import { type ListingTexts, viewTexts } from '../../functions/domain/listing-text.ts';
import { config } from '../../functions/kernel/config.ts';
import type { EnrichMessage, ResumeMessage } from '../../functions/kernel/messages/ai-queue.ts';
import { type EnrichmentProvider, ProviderError } from '../../functions/kernel/ports/ai.ts';
import { setEnrichmentProvider } from '../../functions/kernel/ports/ai-provider.ts';
import { type QueueName, type QueuePort, setQueue } from '../../functions/kernel/ports/queue.ts';
import {
  enrichListing,
  resumeFromMessage,
  resumeHeldEnrichments,
} from '../../functions/services/enrichment.ts';
import { createListing, editListing, type ListingWriter } from '../../functions/services/listings.ts';
import { createTenantFromAdmin, updateTenantFromAdmin } from '../../functions/services/tenants.ts';
import { handler as streamConsumerHandler, type TableChange } from '../../functions/streams/consumer.ts';
import { enrichmentRequest } from '../../functions/streams/reactions/enrichment-request.ts';
import { handler as aiWorkerHandler } from '../../functions/workers/ai.ts';
import { bindLocalAdapters } from '../../scripts/local/adapters/index.ts';
import { LocalEnrichmentProvider } from '../../scripts/local/adapters/local-ai.ts';
import { deliverDue } from '../../scripts/local/queue-poller.ts';
import { asFunction, WORKER_ENTRIES } from '../support/aws-operations.ts';
import { afterIndexLag } from '../support/eventually.ts';
import { createTestPlaces, unique } from '../support/factories.ts';

// Run as their functions, so that what they do on AWS is checked against their roles (permissions.test.ts).
const streamConsumer = asFunction(WORKER_ENTRIES.streamConsumer, streamConsumerHandler);
const aiWorker = asFunction(WORKER_ENTRIES.aiWorker, aiWorkerHandler);

/** A queue that records what is sent instead of sending it. */
class RecordingQueue implements QueuePort {
  sent: { queue: QueueName; message: EnrichMessage; delaySeconds: number | undefined }[] = [];
  async send(queue: QueueName, message: unknown, options: { delaySeconds?: number } = {}) {
    this.sent.push({ queue, message: message as EnrichMessage, delaySeconds: options.delaySeconds });
  }
}

/** A provider that always fails, counting its calls. */
class FailingProvider implements EnrichmentProvider {
  readonly name = 'failing';
  calls = 0;
  async enrich(): Promise<never> {
    this.calls++;
    throw new ProviderError('model unavailable');
  }
}

let placeCode: string;
let recorder: RecordingQueue;

beforeAll(async () => {
  placeCode = (await createTestPlaces()).town.code;
});
afterEach(() => {
  bindLocalAdapters();
});

interface Agency {
  tenantId: string;
  slug: string;
  writer: () => Promise<ListingWriter>;
  update: (changes: TenantChanges) => Promise<unknown>;
}

/** A fresh Tenant with Site Languages en, es, de; writer() reads its current settings. */
async function newAgency(changes: TenantChanges = {}): Promise<Agency> {
  const slug = unique('enr');
  const tenant = await createTenantFromAdmin({ slug, name: 'Enrich Realty', languages: ['en', 'es', 'de'] });
  if (Object.keys(changes).length) await updateTenantFromAdmin(slug, changes);
  return {
    tenantId: tenant.tenantId,
    slug,
    writer: async () => ({ tenant: (await getTenant(tenant.tenantId))!, name: 'int-key', via: 'api' }),
    update: (c) => updateTenantFromAdmin(slug, c),
  };
}

async function create(agency: Agency, input: PropertyCreateInput, lang?: string): Promise<ListingRecord> {
  return (await createListing(await agency.writer(), input, lang)).record;
}

const reread = async (p: { tenantId: string; id: string }) => (await getListing(p.tenantId, p.id))!;

/** The message the stream consumer would queue for the listing's current request. */
const messageFor = (p: ListingRecord, attempt = 1): EnrichMessage => ({
  type: 'enrich',
  tenantId: p.tenantId,
  propertyId: p.id,
  requestId: p.enrichmentRequestId as string,
  attempt,
});

/** The SQS event of one message, as the AI worker's event source delivers it. */
const sqsEvent = (message: EnrichMessage): SQSEvent => ({
  Records: [{ messageId: 'm1', body: JSON.stringify(message) } as SQSEvent['Records'][number]],
});

const texts = (p: ListingRecord) => (p.texts ?? {}) as ListingTexts;

const villa: PropertyCreateInput = {
  title: 'Sunny villa with sea views',
  description: 'A sunny villa close to the beach.',
  listing_type: 'sale',
  property_type: 'villa',
  bedrooms: 4,
  bathrooms: '3',
  area: '250',
  amenities: ['pool', 'garden'],
  price: '950000',
  currency: 'EUR',
};

describe('enrichment: pending → enriched', () => {
  it('queues a create as pending, and a run writes highlights and SEO text in every language without faking translations', async () => {
    // Prepare
    const agency = await newAgency();
    const created = await create(agency, { ...villa, place_code: placeCode });
    expect(created.enrichmentStatus).toBe('pending');
    expect(created.enrichmentRequestId).toEqual(expect.any(String));
    const spentBefore = await spentThisMonthUsd(agency.tenantId, spendMonth(new Date()));
    // Act
    await enrichListing(messageFor(created));
    // Assess
    const enriched = await reread(created);
    expect(enriched.enrichmentStatus).toBe('enriched');
    expect(enriched.enrichedAt).toEqual(expect.any(String));
    expect(enriched.enrichmentAttempts).toBe(1);
    for (const language of ['en', 'es', 'de']) {
      const view = viewTexts({ ...enriched, texts: texts(enriched) }, language);
      expect(view.highlights.length, language).toBeGreaterThan(0);
      expect(view.highlights.length).toBeLessThanOrEqual(6);
      expect(view.seo_description?.length).toBeGreaterThan(0);
      expect(view.seo_description?.length).toBeLessThanOrEqual(160);
    }
    expect(texts(enriched).es?.highlights).toContain('4 dormitorios');
    // no fake translation: the other languages still show the English text, flagged untranslated
    for (const language of ['es', 'de']) {
      expect(texts(enriched)[language]?.title).toBeUndefined();
      expect(texts(enriched)[language]?.description).toBeUndefined();
      expect(viewTexts({ ...enriched, texts: texts(enriched) }, language).untranslated).toEqual([
        'title',
        'description',
      ]);
    }
    expect(enriched.title).toBe(villa.title);
    expect(enriched.description).toBe(villa.description);
    expect(await spentThisMonthUsd(agency.tenantId, spendMonth(new Date()))).toBeGreaterThan(spentBefore);
  });

  it('never overwrites text a client wrote in a language, nor the source text', async () => {
    // Prepare
    const agency = await newAgency();
    const created = await create(agency, { ...villa, highlights: ['Our own highlight'] }, 'es');
    const writer = await agency.writer();
    await editListing(writer, created.id, { title: 'Sonnige Villa', highlights: ['Unser Highlight'] }, 'de');
    const before = await reread(created);
    // Act
    await enrichListing(messageFor(before));
    // Assess
    const after = await reread(created);
    expect(after.enrichmentStatus).toBe('enriched');
    expect(after.sourceLanguage).toBe('es');
    expect(after.title).toBe(villa.title);
    expect(after.description).toBe(villa.description);
    expect(texts(after).es?.highlights).toEqual(['Our own highlight']);
    expect(texts(after).de).toMatchObject({ title: 'Sonnige Villa', highlights: ['Unser Highlight'] });
    expect(texts(after).de?.seoDescription).toEqual(expect.any(String));
    expect(texts(after).en?.highlights).toContain('4 bedrooms');
    expect(texts(after).en?.title).toBeUndefined();
  });

  it('keeps text a client writes while the provider is running (no lost update)', async () => {
    // Prepare: a draft, so the client's edit does not start a newer request
    const agency = await newAgency();
    const created = await create(agency, villa);
    const writer = await agency.writer();
    const local = new LocalEnrichmentProvider();
    setEnrichmentProvider({
      name: 'slow',
      enrich: async (request) => {
        await editListing(writer, created.id, { title: 'Mein Titel', highlights: ['Meins'] }, 'de');
        return local.enrich(request);
      },
    });
    // Act
    await enrichListing(messageFor(created));
    // Assess
    const after = await reread(created);
    expect(after.enrichmentStatus).toBe('enriched');
    expect(texts(after).de).toMatchObject({ title: 'Mein Titel', highlights: ['Meins'] });
    expect(texts(after).de?.seoDescription).toEqual(expect.any(String));
    expect(texts(after).es?.highlights).toContain('4 dormitorios');
  });

  it('ignores a message for a request that is no longer the listing’s (a newer edit replaced it)', async () => {
    // Prepare
    const agency = await newAgency();
    const created = await create(agency, villa);
    // Act
    await enrichListing({ ...messageFor(created), requestId: 'an-older-request' });
    // Assess
    const after = await reread(created);
    expect(after.enrichmentStatus).toBe('pending');
    expect(after.texts).toEqual(created.texts);
  });
});

describe('enrichment triggers', () => {
  it('queues again when an edit puts the listing live or changes its text while live, not for other edits', async () => {
    // Prepare
    const agency = await newAgency();
    const writer = await agency.writer();
    const draft = await create(agency, villa);
    await enrichListing(messageFor(draft));
    const draftEdit = await editListing(writer, draft.id, { description: 'Edited while a draft' }, undefined);
    expect(draftEdit.record.enrichmentStatus).toBe('enriched');
    // Act
    const live = (await editListing(writer, draft.id, { place_code: placeCode }, undefined)).record;
    await enrichListing(messageFor(live));
    const priced = (await editListing(writer, draft.id, { price: '990000' }, undefined)).record;
    const retitled = (await editListing(writer, draft.id, { title: 'Sunny villa, new title' }, undefined))
      .record;
    // Assess
    expect(live.enrichmentStatus).toBe('pending');
    expect(live.enrichmentRequestId).not.toBe(draft.enrichmentRequestId);
    expect(priced.enrichmentStatus).toBe('enriched');
    expect(priced.enrichmentRequestId).toBe(live.enrichmentRequestId);
    expect(retitled.enrichmentStatus).toBe('pending');
    expect(retitled.enrichmentRequestId).not.toBe(live.enrichmentRequestId);
  });

  it('never queues a listing with ai_enrichment false (status stays null)', async () => {
    // Prepare
    const agency = await newAgency();
    const writer = await agency.writer();
    // Act
    const created = await create(agency, { ...villa, ai_enrichment: false });
    const live = (
      await editListing(writer, created.id, { place_code: placeCode, title: 'Retitled' }, undefined)
    ).record;
    // Assess
    expect(created.enrichmentStatus).toBeUndefined();
    expect(created.enrichmentRequestId).toBeUndefined();
    expect(live.enrichmentStatus).toBeUndefined();
    expect(live.aiEnrichment).toBe(false);
  });
});

describe('enrichment: retries and failed', () => {
  it('stays pending and re-queues with backoff after attempts 1 to 3, and fails after attempt 4', async () => {
    // Prepare
    const agency = await newAgency();
    const created = await create(agency, villa);
    const failing = new FailingProvider();
    setEnrichmentProvider(failing);
    recorder = new RecordingQueue();
    setQueue(recorder);
    const delays: number[] = [];
    // Act + Assess: each attempt runs the message the previous one queued
    let message = messageFor(created);
    for (const attempt of [1, 2, 3]) {
      await enrichListing(message);
      const after = await reread(created);
      expect(after.enrichmentStatus, `after attempt ${attempt}`).toBe('pending');
      expect(after.enrichmentAttempts).toBe(attempt);
      expect(recorder.sent).toHaveLength(attempt);
      const retry = recorder.sent.at(-1)!;
      expect(retry.queue).toBe('ai');
      expect(retry.message).toEqual({ ...message, attempt: attempt + 1 });
      delays.push(retry.delaySeconds as number);
      message = retry.message;
    }
    await enrichListing(message);
    // Assess
    const failed = await reread(created);
    expect(failed.enrichmentStatus).toBe('failed');
    expect(failed.enrichmentAttempts).toBe(4);
    expect(failed.enrichmentError).toContain('model unavailable');
    expect(recorder.sent).toHaveLength(3);
    expect(failing.calls).toBe(4);
    expect(delays.every((d) => d > 0)).toBe(true);
    expect(delays[1]).toBeGreaterThan(delays[0] as number);
    expect(delays[2]).toBeGreaterThan(delays[1] as number);
    expect(failed.texts).toEqual(created.texts);
  });

  it('a later edit that triggers enrichment starts over from failed, clearing the error', async () => {
    // Prepare
    const agency = await newAgency();
    const created = await create(agency, { ...villa, place_code: placeCode });
    setEnrichmentProvider(new FailingProvider());
    setQueue(new RecordingQueue());
    for (const attempt of [1, 2, 3, 4]) await enrichListing(messageFor(created, attempt));
    expect((await reread(created)).enrichmentStatus).toBe('failed');
    setEnrichmentProvider(new LocalEnrichmentProvider());
    // Act
    const edited = (await editListing(await agency.writer(), created.id, { title: 'Try again' }, undefined))
      .record;
    await enrichListing(messageFor(edited));
    // Assess
    expect(edited.enrichmentStatus).toBe('pending');
    expect(edited.enrichmentError).toBeUndefined();
    const after = await reread(created);
    expect(after.enrichmentStatus).toBe('enriched');
    expect(after.enrichmentError).toBeUndefined();
  });
});

describe('enrichment: off and paused', () => {
  it('is off while the Tenant’s switch is off, and pending again once it is switched on', async () => {
    // Prepare
    const agency = await newAgency({ aiEnabled: false });
    // Act
    const created = await create(agency, villa);
    const stillOff = await resumeHeldEnrichments(agency.tenantId);
    await agency.update({ aiEnabled: true });
    const resumed = await resumeHeldEnrichments(agency.tenantId);
    // Assess
    expect(created.enrichmentStatus).toBe('off');
    expect(stillOff).toEqual({ resumed: 0 });
    expect(resumed).toEqual({ resumed: 1 });
    const pending = await reread(created);
    expect(pending.enrichmentStatus).toBe('pending');
    expect(pending.enrichmentRequestId).not.toBe(created.enrichmentRequestId);
    // the resumed request runs like any other
    await enrichListing(messageFor(pending));
    expect((await reread(created)).enrichmentStatus).toBe('enriched');
  });

  it('holds a queued request in off when the switch is turned off before it runs', async () => {
    // Prepare
    const agency = await newAgency();
    const created = await create(agency, villa);
    await agency.update({ aiEnabled: false });
    // Act
    await enrichListing(messageFor(created));
    // Assess
    const held = await reread(created);
    expect(held.enrichmentStatus).toBe('off');
    expect(held.texts).toEqual(created.texts);
  });

  it('is paused at the monthly ceiling, and pending again once the ceiling is raised', async () => {
    // Prepare
    const agency = await newAgency({ aiMonthlyLimitUsd: 0 });
    // Act
    const atZero = await create(agency, villa);
    const notYet = await resumeHeldEnrichments(agency.tenantId);
    await agency.update({ aiMonthlyLimitUsd: 100 });
    const resumed = await resumeHeldEnrichments(agency.tenantId);
    // Assess
    expect(atZero.enrichmentStatus).toBe('paused');
    expect(notYet).toEqual({ resumed: 0 });
    expect(resumed).toEqual({ resumed: 1 });
    expect((await reread(atZero)).enrichmentStatus).toBe('pending');
  });

  it('pauses once a charged run has used up the ceiling: new listings and queued requests alike', async () => {
    // Prepare
    const agency = await newAgency({ aiMonthlyLimitUsd: 0.000001 });
    const first = await create(agency, villa);
    const second = await create(agency, { ...villa, title: 'Second villa' });
    expect(first.enrichmentStatus).toBe('pending');
    expect(second.enrichmentStatus).toBe('pending');
    // Act
    await enrichListing(messageFor(first));
    await enrichListing(messageFor(second));
    const third = await create(agency, { ...villa, title: 'Third villa' });
    // Assess
    expect((await reread(first)).enrichmentStatus).toBe('enriched');
    expect(await spentThisMonthUsd(agency.tenantId, spendMonth(new Date()))).toBeGreaterThan(0.000001);
    expect((await reread(second)).enrichmentStatus).toBe('paused');
    expect(third.enrichmentStatus).toBe('paused');
  });

  it('charges a run once it is written, once per request: duplicate deliveries at once pay for one', async () => {
    // Prepare
    const agency = await newAgency();
    const created = await create(agency, villa);
    const message = messageFor(created);
    const local = new LocalEnrichmentProvider();
    const usage = { inputTokens: 2000, outputTokens: 500 };
    let runs = 0;
    let duplicate: Promise<void> | undefined;
    // The first run's model call lasts while a duplicate delivery of the message runs to its end.
    setEnrichmentProvider({
      name: 'slow',
      enrich: async (request) => {
        runs++;
        if (!duplicate) {
          duplicate = enrichListing(message);
          await duplicate;
        }
        return { output: (await local.enrich(request)).output, usage };
      },
    });
    const { AI_PRICE_INPUT_PER_1K_USD: input, AI_PRICE_OUTPUT_PER_1K_USD: output } = config();
    // Act
    await enrichListing(message);
    await enrichListing(message);
    // Assess: two model calls, one result, one charge; the third delivery found the request done
    expect(runs).toBe(2);
    expect((await reread(created)).enrichmentStatus).toBe('enriched');
    expect(await spentThisMonthUsd(agency.tenantId, spendMonth(new Date()))).toBeCloseTo(
      costUsd(usage, { input, output }),
      6,
    );
  });

  it('charges a run whose charge a concurrent charge of the month cancelled (TransactionConflict)', async () => {
    // Prepare
    const agency = await newAgency();
    const created = await create(agency, villa);
    const usage = { inputTokens: 1500, outputTokens: 400 };
    const local = new LocalEnrichmentProvider();
    setEnrichmentProvider({
      name: 'metered',
      enrich: async (request) => ({ output: (await local.enrich(request)).output, usage }),
    });
    // The first transaction on this Tenant's AiSpend item is cancelled as DynamoDB cancels the loser of
    // two concurrent writers: the receipt fine, the spend item in conflict.
    const spendKey = `t#${agency.tenantId}#ai-spend#`;
    let conflicts = 0;
    dynamo().middlewareStack.add(
      (next) => async (args) => {
        if (conflicts === 0 && 'TransactItems' in (args.input as object)) {
          if (JSON.stringify(args.input).includes(spendKey)) {
            conflicts++;
            throw Object.assign(new Error('Transaction cancelled, please refer cancellation reasons'), {
              name: 'TransactionCanceledException',
              CancellationReasons: [
                { Code: 'None' },
                { Code: 'TransactionConflict', Message: 'Transaction is ongoing for the item' },
              ],
            });
          }
        }
        return next(args);
      },
      { step: 'initialize', name: 'injectChargeConflict' },
    );
    const { AI_PRICE_INPUT_PER_1K_USD: input, AI_PRICE_OUTPUT_PER_1K_USD: output } = config();
    // Act: the worker runs the message; a failed message is delivered again, as SQS would
    try {
      const first = await aiWorker(sqsEvent(messageFor(created)));
      if (first.batchItemFailures.length) await aiWorker(sqsEvent(messageFor(created)));
    } finally {
      dynamo().middlewareStack.remove('injectChargeConflict');
    }
    // Assess
    expect(conflicts).toBe(1);
    expect((await reread(created)).enrichmentStatus).toBe('enriched');
    expect(await spentThisMonthUsd(agency.tenantId, spendMonth(new Date()))).toBeCloseTo(
      costUsd(usage, { input, output }),
      6,
    );
  });

  it('charges nothing for a run whose result is not written (the listing moved on to a newer request)', async () => {
    // Prepare
    const agency = await newAgency();
    const created = await create(agency, { ...villa, place_code: placeCode });
    const writer = await agency.writer();
    const local = new LocalEnrichmentProvider();
    setEnrichmentProvider({
      name: 'overtaken',
      enrich: async (request) => {
        // A title edit while live makes a newer request: this run's result must not land.
        await editListing(writer, created.id, { title: 'A new title' }, undefined);
        return {
          output: (await local.enrich(request)).output,
          usage: { inputTokens: 3000, outputTokens: 900 },
        };
      },
    });
    // Act
    await enrichListing(messageFor(created));
    // Assess
    const after = await reread(created);
    expect(after.enrichmentRequestId).not.toBe(created.enrichmentRequestId);
    expect(after.enrichmentStatus).toBe('pending');
    expect(await spentThisMonthUsd(agency.tenantId, spendMonth(new Date()))).toBe(0);
  });

  it('counts spend charged directly, per month', async () => {
    // Prepare
    const agency = await newAgency({ aiMonthlyLimitUsd: 5 });
    const month = spendMonth(new Date());
    // Act
    await chargeSpend(agency.tenantId, month, 3, { inputTokens: 10, outputTokens: 5 });
    const below = await create(agency, villa);
    await chargeSpend(agency.tenantId, month, 2, { inputTokens: 10, outputTokens: 5 });
    const at = await create(agency, villa);
    // Assess
    expect(await spentThisMonthUsd(agency.tenantId, month)).toBeCloseTo(5);
    expect(await spentThisMonthUsd(agency.tenantId, '1999-01')).toBe(0);
    expect(below.enrichmentStatus).toBe('pending');
    expect(at.enrichmentStatus).toBe('paused');
  });
});

/** The table image of a listing as the stream carries it. */
const image = (p: ListingRecord) =>
  ({ ...p, __edb_e__: 'property', __edb_v__: '1' }) as Record<string, unknown>;

/** The decoded table change of a listing image, as the stream consumer hands it to a reaction. */
const change = (
  oldImage: Record<string, unknown> | undefined,
  newImage: Record<string, unknown> | undefined,
): TableChange => ({
  eventId: 'e1',
  kind: oldImage ? (newImage ? 'MODIFY' : 'REMOVE') : 'INSERT',
  entity: String((newImage ?? oldImage)?.__edb_e__),
  oldImage,
  newImage,
});

describe('the enrichment-request reaction (the stream outbox)', () => {
  it('queues exactly one message for a new pending request, and nothing for the same request again', async () => {
    // Prepare
    const agency = await newAgency();
    const created = await create(agency, villa);
    recorder = new RecordingQueue();
    setQueue(recorder);
    // Act
    await enrichmentRequest(change(undefined, image(created)));
    await enrichmentRequest(change(image(created), image(created)));
    await enrichmentRequest(change(image(created), { ...image(created), price: '1' }));
    // Assess
    expect(recorder.sent).toEqual([{ queue: 'ai', message: messageFor(created), delaySeconds: undefined }]);
  });

  it('queues nothing for a held, enriched or unrequested listing, nor for other entities', async () => {
    // Prepare
    const agency = await newAgency();
    const created = await create(agency, villa);
    recorder = new RecordingQueue();
    setQueue(recorder);
    // Act
    for (const status of ['off', 'paused', 'enriched', 'failed', undefined]) {
      await enrichmentRequest(change(undefined, { ...image(created), enrichmentStatus: status }));
    }
    await enrichmentRequest(change(undefined, { ...image(created), enrichmentRequestId: undefined }));
    await enrichmentRequest(change(undefined, { ...image(created), __edb_e__: 'areaMembership' }));
    await enrichmentRequest(change(image(created), undefined));
    // Assess
    expect(recorder.sent).toEqual([]);
  });

  it('is wired into the stream consumer: a resumed request is queued from the MODIFY record', async () => {
    // Prepare
    const agency = await newAgency({ aiEnabled: false });
    const held = await create(agency, villa);
    await agency.update({ aiEnabled: true });
    await resumeHeldEnrichments(agency.tenantId);
    const resumed = await reread(held);
    recorder = new RecordingQueue();
    setQueue(recorder);
    const record = (seq: string, oldImage: ListingRecord, newImage: ListingRecord): DynamoDBRecord => ({
      eventID: seq,
      eventName: 'MODIFY',
      dynamodb: {
        SequenceNumber: seq,
        OldImage: marshall(image(oldImage), { removeUndefinedValues: true }) as never,
        NewImage: marshall(image(newImage), { removeUndefinedValues: true }) as never,
      },
    });
    const event: DynamoDBStreamEvent = {
      Records: [record('1', held, resumed), record('2', resumed, { ...resumed, price: '1' })],
    };
    // Act
    const result = await streamConsumer(event);
    // Assess
    expect(result.batchItemFailures).toEqual([]);
    expect(recorder.sent.map((s) => s.message)).toEqual([messageFor(resumed)]);
  });
});

describe('the AI worker on the local queue', () => {
  it('delivers a queued request to the worker, which enriches the listing; a malformed message is dropped', async () => {
    // Prepare
    const agency = await newAgency();
    const created = await create(agency, { ...villa, place_code: placeCode });
    await enrichmentRequest(change(undefined, image(created)));
    const malformed: SQSEvent = {
      Records: [{ messageId: 'm1', body: '{"type":"enrich"}' } as SQSEvent['Records'][number]],
    };
    // Act: the shared test table's `ai` queue also holds other files' messages (delivered one at a
    // time, oldest first), so this test delivers its own. A run the injected faults fail is
    // received again at once (visibility 0), as the queue's redrive would after its timeout.
    const ours = (body: string) => body.includes(created.id);
    let delivered = 0;
    for (let i = 0; i < 20 && (await reread(created)).enrichmentStatus === 'pending'; i++) {
      delivered += await deliverDue('ai', aiWorker, { visibilityTimeoutMs: 0, select: ours });
    }
    const dropped = await aiWorker(malformed);
    // Assess
    expect(delivered).toBeGreaterThanOrEqual(1);
    expect((await reread(created)).enrichmentStatus).toBe('enriched');
    expect(dropped.batchItemFailures).toEqual([]);
  });
});

describe('what re-queues enrichment on a live listing', () => {
  it('a highlights-only edit keeps the request; a title edit makes a new one', async () => {
    // Prepare
    setQueue(new RecordingQueue());
    const agency = await newAgency();
    const listing = await create(agency, { title: 'Quiet flat', place_code: placeCode });
    const firstRequest = listing.enrichmentRequestId;
    // Act
    await editListing(await agency.writer(), listing.id, { highlights: ['Sunny'] }, undefined);
    const afterHighlights = await reread(listing);
    await editListing(await agency.writer(), listing.id, { title: 'Quiet sunny flat' }, undefined);
    const afterTitle = await reread(listing);
    // Assess
    expect(afterHighlights.enrichmentRequestId).toBe(firstRequest);
    expect(afterTitle.enrichmentRequestId).not.toBe(firstRequest);
    expect(afterTitle.enrichmentStatus).toBe('pending');
  });

  it('ai_enrichment false on a pending listing withdraws the request, so the worker stands down', async () => {
    // Prepare
    setQueue(new RecordingQueue());
    const provider = new FailingProvider();
    setEnrichmentProvider(provider);
    const agency = await newAgency();
    const listing = await create(agency, { title: 'Withdrawn', place_code: placeCode });
    const requestId = listing.enrichmentRequestId as string;
    // Act
    await editListing(await agency.writer(), listing.id, { ai_enrichment: false }, undefined);
    await enrichListing({
      type: 'enrich',
      tenantId: agency.tenantId,
      propertyId: listing.id,
      requestId,
      attempt: 1,
    });
    const after = await reread(listing);
    // Assess
    expect(after.enrichmentStatus).toBeUndefined();
    expect(provider.calls).toBe(0);
  });
});

describe('the daily resume job', () => {
  /** The AI worker's SQS event of one message (as its event source delivers it). */
  const aiEvent = (message: unknown): SQSEvent => ({
    Records: [{ messageId: 'resume-1', body: JSON.stringify(message) } as SQSEvent['Records'][number]],
  });

  it('sends one resume message per Tenant with AI on and a ceiling; the AI worker resumes what the month reset', async () => {
    // Prepare: a paused listing, then a "new month" (no spend recorded for the current one).
    const agency = await newAgency({ aiMonthlyLimitUsd: 1 });
    const other = await newAgency({ aiMonthlyLimitUsd: 5 });
    const noCeiling = await newAgency();
    const month = spendMonth(new Date());
    await chargeSpend(agency.tenantId, month, 2, { inputTokens: 1, outputTokens: 1 });
    const paused = await create(agency, { title: 'Paused villa', place_code: placeCode });
    expect(paused.enrichmentStatus).toBe('paused');
    const { AiSpend } = await import('../../functions/data/entities/ai-spend.ts');
    await AiSpend.delete({ tenantId: agency.tenantId, month }).go();
    recorder = new RecordingQueue();
    setQueue(recorder);
    await afterIndexLag(); // the job lists Tenants, and a run their held listings, through indexes
    // Act
    const { handler } = await import('../../functions/workers/ai-resume.ts');
    await asFunction(WORKER_ENTRIES.aiResume, handler)();
    const mine = new Set([agency.tenantId, other.tenantId, noCeiling.tenantId]);
    const sent = recorder.sent.filter((s) => mine.has((s.message as { tenantId: string }).tenantId));
    const ofAgency = sent.find((s) => s.message.tenantId === agency.tenantId);
    await aiWorker(aiEvent(ofAgency?.message));
    // Assess
    expect(sent.map((s) => s.queue)).toEqual(['ai', 'ai']);
    expect(sent.map((s) => s.message)).toEqual(
      expect.arrayContaining([
        { type: 'resume', tenantId: agency.tenantId },
        { type: 'resume', tenantId: other.tenantId },
      ]),
    );
    expect((await reread(paused)).enrichmentStatus).toBe('pending');
  });

  it("a Tenant's run pages through its listings and goes on from the checkpoint each page queues", async () => {
    // Prepare: five listings held while AI was off, then AI on.
    const agency = await newAgency({ aiEnabled: false });
    const held: ListingRecord[] = [];
    for (let i = 1; i <= 5; i++)
      held.push(await create(agency, { title: `Held ${i}`, place_code: placeCode }));
    await agency.update({ aiEnabled: true });
    recorder = new RecordingQueue();
    setQueue(recorder);
    // Act: the first page (2 listings a page), then each continuation it and the next ones queue.
    const pages = [await resumeFromMessage({ type: 'resume', tenantId: agency.tenantId }, 2)];
    const afterFirstPage = await Promise.all(held.map(reread));
    for (let next = recorder.sent.shift(); next; next = recorder.sent.shift()) {
      pages.push(await resumeFromMessage(next.message as unknown as ResumeMessage, 2));
    }
    // Assess
    expect(held.map((l) => l.enrichmentStatus)).toEqual(Array(5).fill('off'));
    expect(pages.map((p) => p.resumed)).toEqual([2, 2, 1]);
    expect(pages.at(-1)?.checkpoint).toBeNull();
    expect(afterFirstPage.map((l) => l.enrichmentStatus)).toEqual([
      'pending',
      'pending',
      'off',
      'off',
      'off',
    ]);
    const final = await Promise.all(held.map(reread));
    expect(final.map((l) => l.enrichmentStatus)).toEqual(Array(5).fill('pending'));
    // The later pages went on from the checkpoint: the first page's listings were not requested again.
    expect(final.slice(0, 2).map((l) => l.enrichmentRequestId)).toEqual(
      afterFirstPage.slice(0, 2).map((l) => l.enrichmentRequestId),
    );
  });
});
