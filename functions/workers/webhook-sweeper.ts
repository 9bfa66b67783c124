import { logger } from '../kernel/logger.ts';
import '../kernel/zod.ts';
import { withMetrics } from '../kernel/metrics.ts';
import { requeueOverdueDeliveries, type SweepResult } from '../services/webhook-sweeper.ts';

/**
 * Runs every 15 minutes (EventBridge schedule in AWS, more often in `npm start`): queues again the
 * webhook deliveries whose ladder rung was lost (functions/services/webhook-sweeper.ts).
 */
export const handler = withMetrics(async (): Promise<SweepResult> => {
  const result = await requeueOverdueDeliveries();
  logger.info('webhook sweep', { ...result });
  return result;
});
