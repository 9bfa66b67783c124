import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import * as z from 'zod/mini';
import { logger } from '../kernel/logger.ts';
import { withMetrics } from '../kernel/metrics.ts';
import '../kernel/zod.ts';
import { enrichListing } from '../services/enrichment.ts';
import { scoreLead } from '../services/scoring.ts';

/** What the AI queue carries: listing enrichment and Lead (re)scoring requests. */
export const AiMessage = z.discriminatedUnion('type', [
  z.object({ type: z.literal('score'), tenantId: z.string(), leadId: z.string(), requestedAt: z.string() }),
  z.object({
    type: z.literal('enrich'),
    tenantId: z.string(),
    propertyId: z.string(),
    requestId: z.string(),
    attempt: z.number().check(z.int(), z.gte(1)),
  }),
]);
export type AiMessage = z.infer<typeof AiMessage>;

/**
 * The AI worker (SQS in AWS, the local queue in `npm start`). A malformed message is logged and
 * dropped (retrying cannot fix it); an unexpected error is reported as a batch item failure so that
 * only that message is retried.
 */
async function handleAiMessages(event: SQSEvent): Promise<SQSBatchResponse> {
  const batchItemFailures: SQSBatchResponse['batchItemFailures'] = [];
  for (const record of event.Records) {
    let message: AiMessage;
    try {
      message = AiMessage.parse(JSON.parse(record.body));
    } catch (error) {
      logger.error('dropping malformed AI message', { messageId: record.messageId, error: error as Error });
      continue;
    }
    try {
      if (message.type === 'score') await scoreLead(message);
      else await enrichListing(message);
    } catch (error) {
      logger.error('AI message failed', { messageId: record.messageId, error: error as Error });
      batchItemFailures.push({ itemIdentifier: record.messageId });
    }
  }
  return { batchItemFailures };
}

/** The AI spend it charges is published (EMF) when each invocation ends. */
export const handler = withMetrics(handleAiMessages);
