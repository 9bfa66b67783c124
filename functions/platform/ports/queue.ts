import { randomUUID } from 'node:crypto';
import { LocalQueueMessage } from '../../data/entities/local-queue-message.ts';
import { type CredentialSource, callAws, defaultCredentials } from '../aws/aws-http.ts';
import { config } from '../config.ts';

/** The queues the service uses; each maps to an SQS queue URL in AWS. */
export type QueueName = 'ai';

export interface QueuePort {
  send(queue: QueueName, message: unknown, options?: { delaySeconds?: number }): Promise<void>;
}

/**
 * SQS in AWS, through its JSON API. SQS caps DelaySeconds at 900; longer waits are clamped (the
 * worker re-checks). `credentials` is for tests; the default chain is used otherwise.
 */
export class SqsQueue implements QueuePort {
  readonly #urls: Record<QueueName, string | undefined>;
  readonly #credentials: CredentialSource;
  constructor(
    urls: Record<QueueName, string | undefined>,
    credentials: CredentialSource = defaultCredentials(),
  ) {
    this.#urls = urls;
    this.#credentials = credentials;
  }
  async send(queue: QueueName, message: unknown, options: { delaySeconds?: number } = {}): Promise<void> {
    const url = this.#urls[queue];
    if (!url) throw new Error(`No queue URL configured for ${queue}`);
    await callAws({
      service: 'sqs',
      region: config().AWS_REGION,
      // A queue URL is https://sqs.<region>.amazonaws.com/<account>/<name>: its origin is the API's.
      endpoint: new URL(url).origin,
      headers: { 'content-type': 'application/x-amz-json-1.0', 'x-amz-target': 'AmazonSQS.SendMessage' },
      body: JSON.stringify({
        QueueUrl: url,
        MessageBody: JSON.stringify(message),
        DelaySeconds: Math.min(900, Math.max(0, Math.round(options.delaySeconds ?? 0))),
      }),
      credentials: this.#credentials,
    });
  }
}

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

let port: QueuePort | undefined;

/** SQS when the queue URLs are configured (Lambda), the local queue otherwise. */
export function queue(): QueuePort {
  port ??= config().AI_QUEUE_URL ? new SqsQueue({ ai: config().AI_QUEUE_URL }) : new LocalQueue();
  return port;
}

/** Tests swap the adapter. */
export function setQueue(next: QueuePort | undefined): void {
  port = next;
}
