import { randomUUID } from 'node:crypto';
import { LocalQueueMessage } from '../../../functions/data/entities/local-queue-message.ts';
import {
  type DeliveryMessage,
  LOCAL_WEBHOOK_QUEUE,
  MAX_SQS_DELAY_SECONDS,
  scheduleName,
  type WebhookLadderPort,
} from '../../../functions/kernel/ports/webhook-ladder.ts';
import { visibleAtKey } from './local-queue.ts';

/** The local stand-in of the ladder's EventBridge Scheduler group: one item per one-time schedule. */
export const LOCAL_WEBHOOK_SCHEDULES = `${LOCAL_WEBHOOK_QUEUE}-schedules`;

/**
 * The local stack's ladder, following the AWS rule (issue 24, L5): a wait up to 15 minutes is a
 * message of the table-backed local queue, visible after the delay (SQS `DelaySeconds`); a longer one
 * is a one-time schedule, named after the message, that `fireDueSchedules` sends to the queue when it
 * falls due (as Scheduler does). Being in DynamoDB, both survive a restart of `npm start`.
 */
export class LocalWebhookLadder implements WebhookLadderPort {
  async enqueue(message: DeliveryMessage, delayMs: number): Promise<void> {
    const delaySeconds = Math.max(0, Math.ceil(delayMs / 1000));
    const scheduled = delaySeconds > MAX_SQS_DELAY_SECONDS;
    await LocalQueueMessage.create({
      queue: scheduled ? LOCAL_WEBHOOK_SCHEDULES : LOCAL_WEBHOOK_QUEUE,
      visibleAt: visibleAtKey(Date.now() + Math.max(0, delayMs)),
      id: scheduled ? scheduleName(message) : randomUUID(),
      body: JSON.stringify(message),
      receiveCount: 0,
    }).go();
  }
}

/**
 * Fires the local schedules due at `now`: each one's message goes on the delivery queue (visible at
 * once), then the schedule is deleted (`ActionAfterCompletion: DELETE`). A crash in between sends it
 * twice, which the delivery's token makes harmless. Returns how many fired.
 */
export async function fireDueSchedules(now = Date.now()): Promise<number> {
  const { data } = await LocalQueueMessage.query
    .byVisibility({ queue: LOCAL_WEBHOOK_SCHEDULES })
    .lte({ visibleAt: visibleAtKey(now), id: '\uffff' })
    .go({ pages: 'all' });
  for (const schedule of data) {
    await LocalQueueMessage.create({
      queue: LOCAL_WEBHOOK_QUEUE,
      visibleAt: visibleAtKey(now),
      id: randomUUID(),
      body: schedule.body,
      receiveCount: 0,
    }).go();
    await LocalQueueMessage.delete({
      queue: LOCAL_WEBHOOK_SCHEDULES,
      visibleAt: schedule.visibleAt,
      id: schedule.id,
    }).go();
  }
  return data.length;
}
