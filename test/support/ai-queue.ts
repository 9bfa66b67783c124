import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { vi } from 'vitest';
import type { QueuePort } from '../../functions/kernel/ports/queue.ts';
import { handler as aiWorker } from '../../functions/workers/ai.ts';

/**
 * The queue port of an e2e file that runs the AI work of its own Leads itself: what the writes and
 * the stream consumer queue is recorded, never sent, and {@link RecordingAiQueue.runScoringOf} hands
 * a Lead's messages to the real AI worker. (`setQueue(queue)` before, `setQueue(undefined)` after.)
 */
export class RecordingAiQueue implements QueuePort {
  sent: unknown[] = [];

  async send(_queue: string, message: unknown): Promise<void> {
    this.sent.push(message);
  }

  /**
   * Waits up to `timeoutMs` for the messages queued about `leadId` (the stream consumer queues its
   * scoring after the write's events), then runs the AI worker on them as one SQS batch; the
   * worker's answer is the caller's to judge.
   */
  async runScoringOf(leadId: string, timeoutMs: number): Promise<SQSBatchResponse> {
    const messages = await vi.waitFor(
      () => {
        const sent = this.sent.filter((m) => (m as { leadId?: string }).leadId === leadId);
        if (sent.length === 0) throw new Error(`nothing queued about Lead ${leadId} yet`);
        return sent;
      },
      { timeout: timeoutMs, interval: 100 },
    );
    const batch = messages.map((m, i) => ({ messageId: `m${i}`, body: JSON.stringify(m) }));
    return (await aiWorker({ Records: batch } as SQSEvent)) as SQSBatchResponse;
  }
}
