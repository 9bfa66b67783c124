import { config } from '../config.ts';
import { definePort, required } from './port.ts';
import { clientDefaults, lazyClient } from './sdk-client.ts';

/** The queues the service uses; each maps to an SQS queue URL in AWS. */
export type QueueName = 'ai' | 'images';

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
  readonly #urls: Partial<Record<QueueName, string>>;
  /** `urls`: the queues this function may send to; sending to another throws, naming its variable. */
  constructor(urls: Partial<Record<QueueName, string>>) {
    this.#urls = urls;
  }
  async send(queue: QueueName, message: unknown, options: { delaySeconds?: number } = {}): Promise<void> {
    const queueUrl = required(this.#urls[queue], QUEUE_URL_VARIABLES[queue], 'queue');
    const [{ SendMessageCommand }, client] = await sqs();
    await client.send(
      new SendMessageCommand({
        QueueUrl: queueUrl,
        MessageBody: JSON.stringify(message),
        DelaySeconds: sqsDelaySeconds(options.delaySeconds),
      }),
    );
  }
}

/** The setting that holds each queue's URL in Lambda. */
const QUEUE_URL_VARIABLES = {
  ai: 'AI_QUEUE_URL',
  images: 'IMAGE_IMPORT_QUEUE_URL',
} as const satisfies Record<QueueName, string>;

const port = definePort<QueuePort>('queue');

/** The bound queue adapter: SQS in Lambda, the table-backed queue locally, a test's recorder. */
export function queue(): QueuePort {
  return port.get();
}

/**
 * Binds SQS (the Lambda entry of a row that `uses` aiQueue or imageQueue): the queue's URL setting,
 * `AI_QUEUE_URL` or `IMAGE_IMPORT_QUEUE_URL`, is required on the first send to it.
 */
export function bindAwsAdapter(): void {
  port.bindAws(() => {
    const { AI_QUEUE_URL: ai, IMAGE_IMPORT_QUEUE_URL: images } = config();
    return new SqsQueue({ ...(ai ? { ai } : {}), ...(images ? { images } : {}) });
  });
}

/** Binds a queue adapter: the local stack's table-backed queue, or a test's recorder. */
export function setQueue(next: QueuePort | undefined): void {
  port.bind(next);
}
