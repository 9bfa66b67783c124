import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';

/**
 * The business counts the service publishes (CloudWatch namespace `POWERTOOLS_METRICS_NAMESPACE`,
 * `ListingsLeads` in AWS; dimension `service`). Counts only: ids and Tenants go to the logs, never
 * into dimensions, where each distinct value would be a new billed metric.
 */
export const BusinessMetric = {
  /** A new Lead (POST /v1/leads, an ingest). */
  LeadsCreated: 'LeadsCreated',
  /** A contact merged onto an existing Lead by its email or phone. */
  LeadsMerged: 'LeadsMerged',
  /** An ingest answered with warnings (unknown listing or agent). */
  LeadsIngestedWithWarnings: 'LeadsIngestedWithWarnings',
  /** A listing created or changed through the API (a no-op edit is not counted). */
  ListingsWritten: 'ListingsWritten',
  /** USD charged to Tenants' AI spend (sum per period is the bill the service passes on). */
  AiSpendUsd: 'AiSpendUsd',
  /** A webhook endpoint disabled by 20 failures in a row or a 410 (an alarm watches it). */
  WebhookEndpointsDisabled: 'WebhookEndpointsDisabled',
  /** An Owner notice SES refused for good (sandbox, sending paused, rejected): logged, not retried. */
  OwnerNoticesParked: 'OwnerNoticesParked',
  /** A webhook delivery overdue past its rung, queued again by the sweeper (an alarm watches it). */
  WebhookDeliveriesSwept: 'WebhookDeliveriesSwept',
} as const;
export type BusinessMetric = (typeof BusinessMetric)[keyof typeof BusinessMetric];

let sink: Metrics | undefined;

/**
 * Powertools Metrics, inside Lambda only (`AWS_LAMBDA_FUNCTION_NAME` set): there EMF lines on stdout
 * become CloudWatch metrics. Locally (`npm start`, tests) nothing is recorded, so no EMF JSON mixes
 * into the server's output.
 */
function metrics(): Metrics | undefined {
  if (process.env.AWS_LAMBDA_FUNCTION_NAME === undefined) return undefined;
  sink ??= new Metrics({
    namespace: process.env.POWERTOOLS_METRICS_NAMESPACE ?? 'ListingsLeads',
    serviceName: process.env.POWERTOOLS_SERVICE_NAME ?? 'listings-leads',
  });
  return sink;
}

/** Counts `value` of `name` in this invocation; published by `flushMetrics` at its end. */
export function countMetric(name: BusinessMetric, value = 1): void {
  metrics()?.addMetric(
    name,
    name === BusinessMetric.AiSpendUsd ? MetricUnit.NoUnit : MetricUnit.Count,
    value,
  );
}

/**
 * Publishes what this invocation counted (one EMF line) and clears it. Called once per invocation by
 * the request pipeline (functions/pipeline/operation.ts) and by `withMetrics` for workers. Nothing is
 * written when nothing was counted.
 */
export function flushMetrics(): void {
  if (sink?.hasStoredMetrics()) sink.publishStoredMetrics();
}

/** Wraps a worker handler so that its counts are published when each invocation ends, even on error. */
export function withMetrics<A extends unknown[], R>(
  handler: (...args: A) => Promise<R>,
): (...args: A) => Promise<R> {
  return async (...args: A) => {
    try {
      return await handler(...args);
    } finally {
      flushMetrics();
    }
  };
}
