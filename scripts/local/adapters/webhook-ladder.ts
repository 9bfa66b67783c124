import { randomUUID } from 'node:crypto';
import { LocalQueueMessage } from '../../../functions/data/entities/local-queue-message.ts';
import {
  type DeliveryMessage,
  LOCAL_WEBHOOK_QUEUE,
  type WebhookLadderPort,
} from '../../../functions/kernel/ports/webhook-ladder.ts';
import { visibleAtKey } from './local-queue.ts';

/**
 * The local stack's ladder: the message becomes an item of the table-backed local queue, visible
 * after the delay (scripts/local/queue-poller.ts delivers it). Being in DynamoDB, a pending retry
 * survives a restart of `npm start`.
 */
export class LocalWebhookLadder implements WebhookLadderPort {
  async enqueue(message: DeliveryMessage, delayMs: number): Promise<void> {
    await LocalQueueMessage.create({
      queue: LOCAL_WEBHOOK_QUEUE,
      visibleAt: visibleAtKey(Date.now() + Math.max(0, delayMs)),
      id: randomUUID(),
      body: JSON.stringify(message),
      receiveCount: 0,
    }).go();
  }
}
