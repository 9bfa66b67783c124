import { Logger } from '@aws-lambda-powertools/logger';

/**
 * One structured logger for every function. Never log secrets, Authorization headers or whole
 * bodies: log ids, routes, statuses and durations.
 */
export const logger = new Logger({
  serviceName: 'listings-leads',
  logLevel: (process.env.LOG_LEVEL as 'DEBUG' | 'INFO' | 'WARN' | 'ERROR' | 'SILENT' | undefined) ?? 'INFO',
});
