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
