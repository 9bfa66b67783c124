import { config } from '../config.ts';
import { definePort, required } from './port.ts';
import { clientDefaults, lazyClient } from './sdk-client.ts';

/** The queues the service uses; each maps to an SQS queue URL in AWS. */
export type QueueName = 'ai';

export interface QueuePort {
  send(queue: QueueName, message: unknown, options?: { delaySeconds?: number }): Promise<void>;
}

/** SQS caps DelaySeconds at 900; a longer wait is clamped (the worker re-checks what is due). */
export function sqsDelaySeconds(delaySeconds: number | undefined): number {
  return Math.min(900, Math.max(0, Math.round(delaySeconds ?? 0)));
}

const sqs = lazyClient(
  () => import('@aws-sdk/client-sqs'),
  ({ SQSClient }) => new SQSClient(clientDefaults()),
);

/** SQS (SendMessage) in AWS: the message as JSON, to the queue's URL. */
export class SqsQueue implements QueuePort {
  readonly #urls: Record<QueueName, string>;
  constructor(urls: Record<QueueName, string>) {
    this.#urls = urls;
  }
  async send(queue: QueueName, message: unknown, options: { delaySeconds?: number } = {}): Promise<void> {
    const [{ SendMessageCommand }, client] = await sqs();
    await client.send(
      new SendMessageCommand({
        QueueUrl: this.#urls[queue],
        MessageBody: JSON.stringify(message),
        DelaySeconds: sqsDelaySeconds(options.delaySeconds),
      }),
    );
  }
}

const port = definePort<QueuePort>(
  'queue',
  () => new SqsQueue({ ai: required(config().AI_QUEUE_URL, 'AI_QUEUE_URL', 'queue') }),
);

/** The queue adapter: SQS in Lambda (AI_QUEUE_URL required), the bound adapter elsewhere. */
export function queue(): QueuePort {
  return port.get();
}

/** Binds a queue adapter: the local stack's table-backed queue, or a test's recorder. */
export function setQueue(next: QueuePort | undefined): void {
  port.bind(next);
}
