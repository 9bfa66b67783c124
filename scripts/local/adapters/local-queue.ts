import { randomUUID } from 'node:crypto';
import { LocalQueueMessage } from '../../../functions/data/entities/local-queue-message.ts';
import type { QueueName, QueuePort } from '../../../functions/kernel/ports/queue.ts';

/** The sort key of a message: when it becomes visible, zero-padded so that keys sort by time. */
export function visibleAtKey(epochMs: number): string {
  return String(Math.round(epochMs)).padStart(15, '0');
}

/** The local stack's queue: messages are table items that scripts/local/queue-poller.ts delivers. */
export class LocalQueue implements QueuePort {
  async send(queue: QueueName, message: unknown, options: { delaySeconds?: number } = {}): Promise<void> {
    await LocalQueueMessage.create({
      queue,
      visibleAt: visibleAtKey(Date.now() + (options.delaySeconds ?? 0) * 1000),
      id: randomUUID(),
      body: JSON.stringify(message),
      receiveCount: 0,
    }).go();
  }
}
