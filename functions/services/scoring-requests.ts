import type { ScoreMessage } from '../kernel/messages/ai-queue.ts';
import { queue } from '../kernel/ports/queue.ts';

/**
 * Queues (re)scoring of a Lead: after an inquiry, a registration or a criteria change (the stream
 * reaction functions/streams/reactions/scoring-request.ts). Scoring runs in the AI worker
 * (functions/workers/ai.ts), never on the request path. `requestedAt` is the time of the change
 * that asks for it, so a retried stream record sends the very same request (charged once).
 */
export async function requestScoring(request: Omit<ScoreMessage, 'type'>): Promise<void> {
  await queue().send('ai', { type: 'score', ...request } satisfies ScoreMessage);
}
