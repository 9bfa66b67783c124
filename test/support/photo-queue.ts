import { randomUUID } from 'node:crypto';
import type { QueueName, QueuePort } from '../../functions/kernel/ports/queue.ts';
import { LocalQueue } from '../../scripts/local/adapters/local-queue.ts';

/**
 * A test file's own photo import queue: the queue port it binds sends `images` messages to a queue
 * of this file's alone (every other queue as the local stack does), so other files' photo messages
 * never reach this file's worker, nor its theirs. `name` is the queue the file's worker drains.
 */
export function ownPhotoQueue(): { name: QueueName; port: QueuePort } {
  const name = `images-${randomUUID()}` as QueueName;
  const local = new LocalQueue();
  return {
    name,
    port: {
      send: (queue, message, options) => local.send(queue === 'images' ? name : queue, message, options),
    },
  };
}
