import { queue } from '../kernel/ports/queue.ts';

/** The AI queue message that asks for a Lead to be (re)scored. */
export interface ScoreMessage {
  type: 'score';
  tenantId: string;
  leadId: string;
  requestedAt: string;
}

/**
 * Queues (re)scoring of a Lead: after an inquiry, a registration or a criteria change. Scoring runs
 * in the AI worker (functions/workers/ai.ts), never on the request path.
 */
export async function requestScoring(tenantId: string, leadId: string): Promise<void> {
  await queue().send('ai', {
    type: 'score',
    tenantId,
    leadId,
    requestedAt: new Date().toISOString(),
  } satisfies ScoreMessage);
}
