import { Logger } from '@aws-lambda-powertools/logger';

let powertools: Logger | undefined;

/**
 * The Powertools Logger, built on first use rather than at import: its constructor reads the
 * environment and opens its console on the process's stdout and stderr, work a cold start need not
 * wait for before the handler runs (the first log line pays it).
 */
function instance(): Logger {
  powertools ??= new Logger({
    serviceName: process.env.POWERTOOLS_SERVICE_NAME ?? 'listings-leads',
    logLevel: (process.env.LOG_LEVEL as 'DEBUG' | 'INFO' | 'WARN' | 'ERROR' | 'SILENT' | undefined) ?? 'INFO',
  });
  return powertools;
}

/**
 * One structured logger for every function (Powertools; `service` from POWERTOOLS_SERVICE_NAME).
 * Never log secrets, Authorization headers or whole bodies, nor personal data (names, emails, phones,
 * an email's subject) or URLs (their queries and user information hold tokens): log ids, routes,
 * statuses, durations and reason codes; of an error from an outside service, its code (SES's
 * messages name the refused addresses). test/e2e/logs-no-personal-data.test.ts scans a run's logs.
 * Handlers add the Lambda context (`logger.addContext`: function name, memory, cold start, Lambda's
 * request id) and the API request id (`logger.appendKeys({ requestId })`) at the start of an
 * invocation, so every line of that invocation carries them; `logger.resetKeys()` clears the request
 * keys at its end. Every property is the real Logger's (methods bound to it), built on first use.
 */
export const logger: Logger = new Proxy({} as Logger, {
  get(_target, property) {
    const target = instance();
    const value = Reflect.get(target, property, target);
    return typeof value === 'function' ? value.bind(target) : value;
  },
});
