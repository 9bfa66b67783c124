import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { logger } from '../kernel/logger.ts';
import { withMetrics } from '../kernel/metrics.ts';
import '../kernel/zod.ts';
import { privateUrlsAllowed } from '../kernel/net/public-address.ts';
import { DeliveryMessage } from '../kernel/ports/webhook-ladder.ts';
import { processDeliveryMessage } from '../services/webhook-deliveries.ts';

// Refuses to start inside Lambda with the local switch set: the deployed worker must never reach
// private addresses, whatever its environment says.
privateUrlsAllowed();

/**
 * The webhook delivery worker (the SQS delivery queue in AWS, the local queue in `npm start`). The
 * messages of a batch are attempted side by side (each may wait up to 10 s on its receiver). A failed
 * attempt is not an error here: the worker queues the next rung itself. Only an unexpected error
 * (DynamoDB unavailable…) is a batch item failure, retried by SQS and dead-lettered after 5 receives.
 */
export const handler = withMetrics(async (event: SQSEvent): Promise<SQSBatchResponse> => {
  const results = await Promise.all(
    event.Records.map(async (record) => {
      let message: DeliveryMessage;
      try {
        message = DeliveryMessage.parse(JSON.parse(record.body));
      } catch (error) {
        logger.error('dropping malformed webhook message', {
          messageId: record.messageId,
          error: error as Error,
        });
        return undefined;
      }
      try {
        const result = await processDeliveryMessage(message);
        logger.info('webhook message', { deliveryId: message.deliveryId, trigger: message.trigger, result });
        return undefined;
      } catch (error) {
        logger.error('webhook message failed', { messageId: record.messageId, error: error as Error });
        return { itemIdentifier: record.messageId };
      }
    }),
  );
  return { batchItemFailures: results.filter((r) => r !== undefined) };
});
