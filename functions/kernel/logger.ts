import { Logger } from '@aws-lambda-powertools/logger';

/**
 * One structured logger for every function (Powertools; `service` from POWERTOOLS_SERVICE_NAME).
 * Never log secrets, Authorization headers or whole bodies: log ids, routes, statuses and durations.
 * Handlers add the Lambda context (`logger.addContext`: function name, memory, cold start, Lambda's
 * request id) and the API request id (`logger.appendKeys({ requestId })`) at the start of an
 * invocation, so every line of that invocation carries them; `logger.resetKeys()` clears the request
 * keys at its end.
 */
export const logger = new Logger({
  serviceName: process.env.POWERTOOLS_SERVICE_NAME ?? 'listings-leads',
  logLevel: (process.env.LOG_LEVEL as 'DEBUG' | 'INFO' | 'WARN' | 'ERROR' | 'SILENT' | undefined) ?? 'INFO',
});
