import { randomUUID } from 'node:crypto';
import type { SQSClient } from '@aws-sdk/client-sqs';
import { LocalQueueMessage } from '../../data/entities/local-queue-message.ts';
import { config } from '../config.ts';

/** The queues the service uses; each maps to an SQS queue URL in AWS. */
export type QueueName = 'ai';

export interface QueuePort {
  send(queue: QueueName, message: unknown, options?: { delaySeconds?: number }): Promise<void>;
}

/**
 * SQS in AWS. SQS caps DelaySeconds at 900; longer waits are clamped (the worker re-checks). The SQS
 * client is loaded on the first send: many functions import this port but only some send.
 */
export class SqsQueue implements QueuePort {
  #client:
    | Promise<{
        client: SQSClient;
        SendMessageCommand: typeof import('@aws-sdk/client-sqs').SendMessageCommand;
      }>
    | undefined;
  readonly #urls: Record<QueueName, string | undefined>;
  constructor(urls: Record<QueueName, string | undefined>) {
    this.#urls = urls;
  }
  async send(queue: QueueName, message: unknown, options: { delaySeconds?: number } = {}): Promise<void> {
    const url = this.#urls[queue];
    if (!url) throw new Error(`No queue URL configured for ${queue}`);
    this.#client ??= import('@aws-sdk/client-sqs').then((sqs) => ({
      client: new sqs.SQSClient({}),
      SendMessageCommand: sqs.SendMessageCommand,
    }));
    const { client, SendMessageCommand } = await this.#client;
    await client.send(
      new SendMessageCommand({
        QueueUrl: url,
        MessageBody: JSON.stringify(message),
        DelaySeconds: Math.min(900, Math.max(0, Math.round(options.delaySeconds ?? 0))),
      }),
    );
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
