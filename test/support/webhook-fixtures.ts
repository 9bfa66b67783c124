import { randomUUID } from 'node:crypto';
import { LocalQueueMessage } from '../../functions/data/entities/local-queue-message.ts';
import type { WebhookResponse } from '../../functions/kernel/net/webhook-sender.ts';
import type { DeliveryMessage, WebhookLadderPort } from '../../functions/kernel/ports/webhook-ladder.ts';

/** The retry ladder as a list; `failing` makes every enqueue throw (SQS or Scheduler down). */
export class TestLadder implements WebhookLadderPort {
  readonly queued: { message: DeliveryMessage; delayMs: number }[] = [];
  failing = false;
  async enqueue(message: DeliveryMessage, delayMs: number) {
    if (this.failing) throw new Error('The ladder is unavailable (test)');
    this.queued.push({ message, delayMs });
  }
}

/** A receiver's answer with `status`, as the sender reports it. */
export function answer(status: number): WebhookResponse {
  return { statusCode: status, error: null, durationMs: 5, responseBody: `status ${status}` };
}

/** A ladder message carrying `token`, of a delivery of its own. */
export const messageWith = (token: string): DeliveryMessage => ({
  tenantId: 't',
  endpointId: 'e',
  deliveryId: randomUUID(),
  trigger: 'auto',
  token,
});

/** The messages of a local queue (or the Scheduler stand-in's schedules) carrying one of `tokens`. */
export async function holding(queue: string, tokens: readonly string[]) {
  const { data } = await LocalQueueMessage.query.byVisibility({ queue }).go({ pages: 'all' });
  return data.filter((m) => tokens.includes((JSON.parse(m.body) as DeliveryMessage).token));
}
