/**
 * The local stand-in of the SQS event sources (scripts/local/queue-poller.ts), alone.
 */
import type { SQSEvent } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { LocalQueueMessage } from '../../functions/data/entities/local-queue-message.ts';
import { visibleAtKey } from '../../scripts/local/adapters/local-queue.ts';
import { deadLetterQueueOf, deliverDue } from '../../scripts/local/queue-poller.ts';
import { unique } from '../support/factories.ts';

/** Every message of a local queue, visible or not. */
async function messagesOf(queue: string) {
  const { data } = await LocalQueueMessage.query.byVisibility({ queue }).go({ pages: 'all' });
  return data;
}

describe('the local queue event source: receive counts and the dead-letter queue', () => {
  it('moves a message that failed maxReceiveCount receives (the worker table: 5) to the local DLQ, never dropping it', async () => {
    // Prepare: a queue of the test's own name, a message already received 4 times
    const queue = unique('q') as 'ai';
    const id = unique('m');
    await LocalQueueMessage.create({
      queue,
      visibleAt: visibleAtKey(Date.now() - 1),
      id,
      body: '{"poison":true}',
      receiveCount: 4,
    }).go();
    const seen: SQSEvent[] = [];
    // Act: its fifth receive fails
    const delivered = await deliverDue(queue, async (event) => {
      seen.push(event);
      return { batchItemFailures: event.Records.map((r) => ({ itemIdentifier: r.messageId })) };
    });
    // Assess
    expect(delivered).toBe(1);
    expect(seen[0]?.Records[0]?.attributes.ApproximateReceiveCount).toBe('5');
    expect(await messagesOf(queue)).toEqual([]);
    expect(await messagesOf(deadLetterQueueOf(queue))).toEqual([
      expect.objectContaining({ id, body: '{"poison":true}', receiveCount: 5 }),
    ]);
  });

  it('puts a failed message back with its receive count before the next receive', async () => {
    // Prepare
    const queue = unique('q') as 'ai';
    await LocalQueueMessage.create({
      queue,
      visibleAt: visibleAtKey(Date.now() - 1),
      id: unique('m'),
      body: '{}',
      receiveCount: 0,
    }).go();
    // Act
    await deliverDue(queue, async (event) => ({
      batchItemFailures: event.Records.map((r) => ({ itemIdentifier: r.messageId })),
    }));
    // Assess: one copy, received once, not yet visible again
    const [left, ...more] = await messagesOf(queue);
    expect(more).toEqual([]);
    expect(left?.receiveCount).toBe(1);
    expect(Number(left?.visibleAt)).toBeGreaterThan(Date.now());
    expect(await messagesOf(deadLetterQueueOf(queue))).toEqual([]);
  });

  it('delivers only the messages `select` picks, oldest first, and leaves the others as they were', async () => {
    // Prepare: three older messages of others, then the test's own
    const queue = unique('q') as 'ai';
    const at = Date.now() - 1_000;
    for (const [i, body] of ['{"of":"a"}', '{"of":"b"}', '{"of":"c"}', '{"of":"mine"}'].entries()) {
      await LocalQueueMessage.create({
        queue,
        visibleAt: visibleAtKey(at + i),
        id: unique('m'),
        body,
        receiveCount: 0,
      }).go();
    }
    const seen: string[] = [];
    // Act: a batch of one, as the `ai` row's
    const delivered = await deliverDue(
      queue,
      async (event) => {
        seen.push(...event.Records.map((r) => r.body));
        return { batchItemFailures: [] };
      },
      { limit: 1, select: (body) => body.includes('mine') },
    );
    // Assess
    expect(delivered).toBe(1);
    expect(seen).toEqual(['{"of":"mine"}']);
    const left = await messagesOf(queue);
    expect(left.map((m) => [m.body, m.receiveCount])).toEqual([
      ['{"of":"a"}', 0],
      ['{"of":"b"}', 0],
      ['{"of":"c"}', 0],
    ]);
  });
});
