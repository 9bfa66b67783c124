/**
 * The local ladder alone (scripts/local/adapters/webhook-ladder.ts): the AWS rule, SQS delay up to
 * 15 minutes and a schedule beyond (issue 24, L5).
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { LocalQueueMessage } from '../../functions/data/entities/local-queue-message.ts';
import { type DeliveryMessage, LOCAL_WEBHOOK_QUEUE } from '../../functions/kernel/ports/webhook-ladder.ts';
import {
  fireDueSchedules,
  LOCAL_WEBHOOK_SCHEDULES,
  LocalWebhookLadder,
} from '../../scripts/local/adapters/webhook-ladder.ts';

async function holding(queue: string, token: string) {
  const { data } = await LocalQueueMessage.query.byVisibility({ queue }).go({ pages: 'all' });
  return data.filter((m) => (JSON.parse(m.body) as DeliveryMessage).token === token);
}

const messageWith = (token: string): DeliveryMessage => ({
  tenantId: 't',
  endpointId: 'e',
  deliveryId: randomUUID(),
  trigger: 'auto',
  token,
});

describe('the local ladder (L5)', () => {
  it('puts a wait of up to 15 minutes on the queue with its delay, and nothing in the schedules', async () => {
    // Prepare
    const token = randomUUID().replaceAll('-', '');
    const before = Date.now();
    // Act
    await new LocalWebhookLadder().enqueue(messageWith(token), 900_000);
    // Assess
    const queued = await holding(LOCAL_WEBHOOK_QUEUE, token);
    expect(queued).toHaveLength(1);
    expect(Number(queued[0]?.visibleAt)).toBeGreaterThanOrEqual(before + 900_000);
    expect(await holding(LOCAL_WEBHOOK_SCHEDULES, token)).toEqual([]);
  });

  it('makes a longer wait a schedule named after the message, which fires onto the queue when due', async () => {
    // Prepare
    const token = randomUUID().replaceAll('-', '');
    const before = Date.now();
    // Act: a 2-hour rung; the local Scheduler looks before it is due, then after
    await new LocalWebhookLadder().enqueue(messageWith(token), 2 * 3_600_000);
    const queuedAtOnce = await holding(LOCAL_WEBHOOK_QUEUE, token);
    const schedules = await holding(LOCAL_WEBHOOK_SCHEDULES, token);
    await fireDueSchedules(before + 3_600_000);
    const stillScheduled = await holding(LOCAL_WEBHOOK_SCHEDULES, token);
    await fireDueSchedules(Date.now() + 2 * 3_600_000 + 1000);
    // Assess
    expect(queuedAtOnce).toEqual([]);
    expect(schedules.map((s) => s.id)).toEqual([`webhook-${token}`]);
    expect(Number(schedules[0]?.visibleAt)).toBeGreaterThanOrEqual(before + 2 * 3_600_000);
    expect(stillScheduled).toHaveLength(1);
    expect(await holding(LOCAL_WEBHOOK_SCHEDULES, token)).toEqual([]);
    expect(await holding(LOCAL_WEBHOOK_QUEUE, token)).toHaveLength(1);
  });
});
