import { randomUUID } from 'node:crypto';
import { listTenants } from '../data/tenants.ts';
import {
  listLiveEndpoints,
  queryDeliveriesSince,
  replaceScheduleToken,
  type WebhookDeliveryRecord,
} from '../data/webhooks.ts';
import { RETRY_LADDER_MS } from '../domain/webhooks.ts';
import { config } from '../kernel/config.ts';
import { logger } from '../kernel/logger.ts';
import { BusinessMetric, countMetric } from '../kernel/metrics.ts';
import {
  MAX_SQS_DELAY_SECONDS,
  type WebhookLadderPort,
  webhookLadder,
} from '../kernel/ports/webhook-ladder.ts';

/**
 * How late a pending delivery's attempt may be before the sweeper takes it for lost: one rung SQS
 * holds (15 minutes). A rung SQS holds is never later than that unless it was lost; a schedule fires
 * within a minute of its time (and is retried by Scheduler meanwhile; a late one finds its token
 * replaced and does nothing).
 */
export const OVERDUE_AFTER_MS = MAX_SQS_DELAY_SECONDS * 1000;

/**
 * The least lateness taken for a loss, however far the ladder shrinks: an attempt still under way
 * is late by the receiver's answer (up to 10 s, WEBHOOK_TIMEOUT_MS) plus the queue's claim and the
 * table writes, slow on a loaded DynamoDB Local. Sooner, the sweeper would hand a delivery to a new
 * message while its attempt is being made, and the receiver would get a second POST (recorded as
 * one attempt, but sent twice).
 */
export const MIN_OVERDUE_AFTER_MS = 30_000;

/** How late an attempt may be when the ladder's waits are multiplied by `delayScale` (RETRY_DELAY_SCALE). */
export function overdueAfterMsFor(delayScale: number): number {
  return Math.max(MIN_OVERDUE_AFTER_MS, OVERDUE_AFTER_MS * delayScale);
}

/**
 * How far back deliveries are looked at: the whole ladder (about 69 hours) from the first attempt,
 * with a day to spare. A delivery pending for longer than that was already found by earlier sweeps.
 */
export const SWEEP_LOOKBACK_MS = RETRY_LADDER_MS.reduce((a, b) => a + b, 0) + 24 * 3_600_000;

/** When the delivery's next automatic attempt was due: its rung's time, or its creation for the first. */
function dueAt(delivery: WebhookDeliveryRecord): number {
  return Date.parse(delivery.nextAttemptAt ?? delivery.createdAt);
}

/** The most the sweeper's back-off doubles: 2^6 windows (16 hours on AWS) between two sweeps. */
const MAX_SWEEP_DOUBLINGS = 6;

/**
 * Whether the delivery's message is taken for lost: its attempt is overdue by more than the window,
 * doubled for each time the sweeper already queued it again since its last attempt. A queue backed
 * up for longer than the window (a flood of events, a slow receiver) makes every message look lost:
 * without the back-off each sweep replaced every token, every queued message was stale when the
 * worker reached it, and nothing was ever attempted again (found by the soak). With it, a message
 * queued again waits twice as long each time, so one arrives while it is still the one awaited.
 */
export function isOverdue(delivery: WebhookDeliveryRecord, overdueAfterMs: number, now: number): boolean {
  const doublings = Math.min(delivery.sweeps ?? 0, MAX_SWEEP_DOUBLINGS);
  return now - dueAt(delivery) > overdueAfterMs * 2 ** doublings;
}

export interface SweepResult {
  endpoints: number;
  pending: number;
  requeued: number;
}

/**
 * The ladder's safety net: finds pending deliveries whose automatic attempt is overdue
 * by more than `OVERDUE_AFTER_MS` (a schedule that never fired, a rung that could not be queued after
 * its attempt was recorded, a queue message lost) and queues each again at once. The delivery is first
 * handed to the new message (a new `scheduleToken`), so the lost one, should it still come, is stale:
 * one attempt, not two. Reads without a Scan: the Tenants (gsi2), each one's endpoints, and each
 * endpoint's deliveries of the look-back period (its delivery index, pending ones filtered). Counted
 * (WebhookDeliveriesSwept, alarmed): every delivery found here was late because something failed.
 *
 * `overdueAfterMs` shrinks with RETRY_DELAY_SCALE locally, to no less than `MIN_OVERDUE_AFTER_MS`.
 */
export async function requeueOverdueDeliveries(
  ladder: WebhookLadderPort = webhookLadder(),
  overdueAfterMs = overdueAfterMsFor(config().RETRY_DELAY_SCALE),
  now = Date.now(),
  /** Sweep these Tenants only (a test on the shared test table, whose other Tenants are not its own). */
  tenantIds?: readonly string[],
): Promise<SweepResult> {
  const since = new Date(now - SWEEP_LOOKBACK_MS).toISOString();
  const result: SweepResult = { endpoints: 0, pending: 0, requeued: 0 };
  const tenants = tenantIds ? tenantIds.map((tenantId) => ({ tenantId })) : await listTenants();
  for (const tenant of tenants) {
    for (const endpoint of await listLiveEndpoints(tenant.tenantId)) {
      result.endpoints++;
      const pending = await queryDeliveriesSince(tenant.tenantId, endpoint.id, 'pending', since);
      result.pending += pending.length;
      for (const delivery of pending.filter((d) => isOverdue(d, overdueAfterMs, now))) {
        const token = randomUUID().replaceAll('-', '');
        if (!(await replaceScheduleToken(delivery, token, new Date(now).toISOString()))) continue;
        await ladder.enqueue(
          {
            tenantId: delivery.tenantId,
            endpointId: delivery.endpointId,
            deliveryId: delivery.id,
            trigger: 'auto',
            token,
          },
          0,
        );
        result.requeued++;
        logger.warn('webhook delivery overdue: queued again', {
          tenantId: delivery.tenantId,
          deliveryId: delivery.id,
          dueAt: delivery.nextAttemptAt ?? delivery.createdAt,
          autoAttempts: delivery.autoAttempts,
        });
      }
    }
  }
  if (result.requeued > 0) countMetric(BusinessMetric.WebhookDeliveriesSwept, result.requeued);
  return result;
}
