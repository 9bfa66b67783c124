import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { logger } from '../kernel/logger.ts';
import { AiMessage } from '../kernel/messages/ai-queue.ts';
import { withMetrics } from '../kernel/metrics.ts';
import { enrichListing, resumeFromMessage } from '../services/enrichment.ts';
import { scoreLead } from '../services/scoring.ts';

/**
 * The AI worker (SQS in AWS, the local queue in `npm start`): enrichments, scorings, and the pages of
 * each Tenant's daily resume run. A malformed message is logged and dropped (retrying cannot fix
 * it); an unexpected error is reported as a batch item failure so that only that message is retried.
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
      else if (message.type === 'resume') await resumeFromMessage(message);
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
