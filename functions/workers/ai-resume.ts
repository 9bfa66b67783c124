import { logger } from '../kernel/logger.ts';
import { resumeAllTenants } from '../services/enrichment.ts';

/**
 * Runs daily (EventBridge schedule in AWS, hourly in `npm start`): releases enrichments that were
 * paused by a Tenant's monthly AI Spend Ceiling once a new month has reset the spend, by queueing
 * one resume message per Tenant for the AI worker.
 */
export async function handler(): Promise<{ tenants: number }> {
  const result = await resumeAllTenants();
  logger.info('AI resume', result);
  return result;
}
