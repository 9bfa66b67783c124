import type { EntityItem } from 'electrodb';
import { withoutUndefined } from './defined.ts';
import { KEPT_ATTEMPTS, KEPT_RESPONSE_BODY_BYTES, WebhookDelivery } from './entities/webhook-delivery.ts';
import { WebhookEndpoint } from './entities/webhook-endpoint.ts';
import { isConditionalFailure } from './errors.ts';
import { EDIT_ATTEMPTS, RETRY, withOptimisticRetry } from './optimistic.ts';

export type WebhookEndpointRecord = EntityItem<typeof WebhookEndpoint>;
export type WebhookDeliveryRecord = EntityItem<typeof WebhookDelivery>;
export type DeliveryAttempt = WebhookDeliveryRecord['attempts'][number];
export type DisabledReason = NonNullable<WebhookEndpointRecord['disabledReason']>;

/** Position in a (createdAt, id) ordered list: the last item already returned. */
export interface CreatedPosition {
  createdAt: string;
  id: string;
}

export async function insertEndpoint(record: WebhookEndpointRecord): Promise<void> {
  await WebhookEndpoint.create(record).go();
}

/** The endpoint, unsubscribed ones included (callers decide what a deleted one means). */
export async function getEndpoint(tenantId: string, id: string): Promise<WebhookEndpointRecord | undefined> {
  // Strongly consistent: an integrator subscribes and at once sends a test, enables or rotates the
  // secret; an eventually consistent read could answer 404 for the endpoint it has just created, or
  // judge a send by a state an edit has already replaced. One item: 1 read unit instead of 0.5.
  const { data } = await WebhookEndpoint.get({ tenantId, id }).go({ consistent: true });
  return data ?? undefined;
}

/**
 * A page of the endpoints key `createdByKeyId` subscribed and of the console's (unsubscribed ones
 * left out), oldest first, `limit + 1` items.
 */
export async function queryEndpoints(
  tenantId: string,
  createdByKeyId: string,
  limit: number,
  after?: CreatedPosition,
): Promise<WebhookEndpointRecord[]> {
  const index = WebhookEndpoint.query.byTenant({ tenantId });
  const { data } = await (after ? index.gt(after) : index)
    .where(
      ({ deletedAt, createdByKeyId: subscriber, createdVia }, { notExists, eq }) =>
        `${notExists(deletedAt)} AND (${eq(subscriber, createdByKeyId)} OR ${eq(createdVia, 'console')})`,
    )
    .go({ limit: limit + 1, count: limit + 1 });
  return data;
}

/** Every live endpoint of the Tenant (a Tenant has a handful): fan-out and key revocation. */
export async function listLiveEndpoints(tenantId: string): Promise<WebhookEndpointRecord[]> {
  const { data } = await WebhookEndpoint.query
    .byTenant({ tenantId })
    .where(({ deletedAt }, { notExists }) => notExists(deletedAt))
    .go({ pages: 'all' });
  return data;
}

export async function updateEndpoint(
  tenantId: string,
  id: string,
  changes: Partial<
    Pick<WebhookEndpointRecord, 'enabled' | 'secret' | 'consecutiveFailures' | 'deletedAt'>
  > & {
    disabled?: { reason: DisabledReason; at: string } | null;
  },
): Promise<WebhookEndpointRecord> {
  const { disabled, ...rest } = changes;
  const now = new Date().toISOString();
  let update = WebhookEndpoint.patch({ tenantId, id }).set({
    ...rest,
    ...(disabled ? { disabledReason: disabled.reason, disabledAt: disabled.at } : {}),
    updatedAt: now,
  });
  if (disabled === null) update = update.remove(['disabledReason', 'disabledAt']);
  const { data } = await update.go({ response: 'all_new' });
  return data as WebhookEndpointRecord;
}

/**
 * Disables an enabled endpoint; `true` only for the call that actually turned it off, so that the
 * Tenant Admins are emailed once however many deliveries fail at the same moment.
 */
export async function disableEndpointOnce(
  tenantId: string,
  id: string,
  reason: DisabledReason,
): Promise<boolean> {
  const now = new Date().toISOString();
  try {
    await WebhookEndpoint.patch({ tenantId, id })
      .set({ enabled: false, disabledReason: reason, disabledAt: now, updatedAt: now })
      .where(({ enabled }, { eq }) => eq(enabled, true))
      .go();
    return true;
  } catch (error) {
    if (isConditionalFailure(error)) return false;
    throw error;
  }
}

/**
 * Counts one more failed attempt in a row, unless one was counted less than `windowMs` before `now`:
 * the failures of one receiver blip (a burst of concurrent deliveries failing together) count once.
 * The window is checked in the update's condition, so concurrent failures cannot all pass it.
 * Returns the new count, or `undefined` when this failure fell in the window and was not counted.
 */
export async function countEndpointFailure(
  tenantId: string,
  id: string,
  windowMs: number,
  now = new Date(),
): Promise<number | undefined> {
  const windowStart = new Date(now.getTime() - windowMs).toISOString();
  try {
    const { data } = await WebhookEndpoint.patch({ tenantId, id })
      .add({ consecutiveFailures: 1 })
      .set({ failureCountedAt: now.toISOString() })
      .where(
        ({ failureCountedAt }, { notExists, lte }) =>
          `(${notExists(failureCountedAt)} OR ${lte(failureCountedAt, windowStart)})`,
      )
      .go({ response: 'all_new' });
    return (data as WebhookEndpointRecord).consecutiveFailures;
  } catch (error) {
    if (isConditionalFailure(error)) return undefined;
    throw error;
  }
}

/**
 * A success ends the run of failures. Decided by the item as it is when the update runs, not by an
 * earlier read: a failure counted between that read and this success is reset too. Writes nothing
 * (no stream record) when there is no run to end.
 */
export async function resetEndpointFailures(tenantId: string, id: string): Promise<void> {
  try {
    await WebhookEndpoint.patch({ tenantId, id })
      .set({ consecutiveFailures: 0 })
      .remove(['failureCountedAt'])
      .where(
        ({ consecutiveFailures, failureCountedAt }, { gt, exists }) =>
          `(${gt(consecutiveFailures, 0)} OR ${exists(failureCountedAt)})`,
      )
      .go();
  } catch (error) {
    if (!isConditionalFailure(error)) throw error;
  }
}

/** Creates the delivery unless it exists (a replayed stream batch): `false` when it did. */
export async function insertDeliveryOnce(record: WebhookDeliveryRecord): Promise<boolean> {
  try {
    await WebhookDelivery.create(record).go();
    return true;
  } catch (error) {
    if (isConditionalFailure(error)) return false;
    throw error;
  }
}

/**
 * Strongly consistent: the delivery is read by the message queued right after its write (fan-out, a
 * rung, the sweeper's new token); a stale copy would judge a live message stale and drop it.
 */
export async function getDelivery(tenantId: string, id: string): Promise<WebhookDeliveryRecord | undefined> {
  const { data } = await WebhookDelivery.get({ tenantId, id }).go({ consistent: true });
  return data ?? undefined;
}

/** A page of an endpoint's deliveries, newest first, `limit + 1` items. */
export async function queryDeliveries(
  tenantId: string,
  endpointId: string,
  limit: number,
  before?: CreatedPosition,
): Promise<WebhookDeliveryRecord[]> {
  const index = WebhookDelivery.query.byEndpoint({ tenantId, endpointId });
  const { data } = await (before ? index.lt(before) : index).go({
    order: 'desc',
    limit: limit + 1,
    count: limit + 1,
  });
  return data;
}

/**
 * The endpoint's deliveries in `state` created at or after `since` (ISO, UTC): one Query on the
 * endpoint's delivery index, from `since` on, the others left out by a filter (no Scan). `failed`
 * for recover, `pending` for the sweeper.
 */
export async function queryDeliveriesSince(
  tenantId: string,
  endpointId: string,
  state: 'failed' | 'pending' | 'succeeded',
  since: string,
): Promise<WebhookDeliveryRecord[]> {
  const { data } = await WebhookDelivery.query
    .byEndpoint({ tenantId, endpointId })
    .gte({ createdAt: since })
    .where(({ status }, { eq }) => eq(status, state))
    .go({ pages: 'all' });
  return data;
}

/**
 * Hands a pending delivery's next automatic attempt to a new message: `scheduleToken` becomes
 * `token` (the old one's message, should it ever come, is then stale) and the attempt is due `dueAt`.
 * `false` when the delivery moved on meanwhile (an attempt was recorded, it settled).
 */
export async function replaceScheduleToken(
  delivery: WebhookDeliveryRecord,
  token: string,
  dueAt: string,
): Promise<boolean> {
  try {
    await WebhookDelivery.patch({ tenantId: delivery.tenantId, id: delivery.id })
      .set({
        scheduleToken: token,
        nextAttemptAt: dueAt,
        sweeps: (delivery.sweeps ?? 0) + 1,
        updatedAt: new Date().toISOString(),
      })
      .where(
        ({ scheduleToken, status }, { eq }) =>
          `${eq(scheduleToken, delivery.scheduleToken)} AND ${eq(status, 'pending')}`,
      )
      .go();
    return true;
  } catch (error) {
    if (isConditionalFailure(error)) return false;
    throw error;
  }
}

/** What an attempt changes on its delivery. */
export interface AttemptRecord {
  /** The attempt made; its `number` is given when it is recorded (the delivery's count plus one). */
  attempt: Omit<DeliveryAttempt, 'number'>;
  status: WebhookDeliveryRecord['status'];
  /** The next automatic attempt, or null for none. */
  nextAttemptAt: string | null;
  autoAttempts?: number;
  /** The token of the message queued for the next automatic attempt (a fresh one). */
  scheduleToken?: string;
}

type AttemptGuard = { scheduleToken: string } | { requestId: string };

/** Every attempt the delivery made, the ones no longer kept included. */
export function attemptCountOf(delivery: WebhookDeliveryRecord): number {
  return delivery.attemptCount ?? delivery.attempts.length;
}

/** Whether the message `guard` names may still record its attempt on `delivery`. */
function guardHolds(delivery: WebhookDeliveryRecord, guard: AttemptGuard): boolean {
  return 'scheduleToken' in guard
    ? delivery.scheduleToken === guard.scheduleToken
    : delivery.handledRequestId !== guard.requestId;
}

/** The first `maxBytes` of `text` in UTF-8, never cutting a character in two. */
function utf8Prefix(text: string, maxBytes: number): string {
  const bytes = Buffer.from(text, 'utf8');
  if (bytes.length <= maxBytes) return text;
  let end = maxBytes;
  // Back off continuation bytes (10xxxxxx) so the cut falls on a character's first byte.
  while (end > 0 && ((bytes[end] ?? 0) & 0xc0) === 0x80) end--;
  return bytes.subarray(0, end).toString('utf8');
}

/**
 * Logs an attempt. `guard` names the message that made it: an automatic attempt must still hold the
 * delivery's `scheduleToken`, a requested one must not have been handled yet. `false` when the guard
 * failed: another copy of the message got there first, and this one's result is not recorded.
 *
 * The attempt list is bounded: the update writes the last KEPT_ATTEMPTS attempts, this one
 * included (with its response body cut to KEPT_RESPONSE_BODY_BYTES), and the count of all of them.
 * DynamoDB cannot append to a list and drop its head in one update, so the list is written whole,
 * on condition that the count is still the one it was built from; another attempt recorded in
 * between (an automatic one beside a redelivery) makes it re-read and build again.
 */
export async function recordAttempt(
  delivery: WebhookDeliveryRecord,
  change: AttemptRecord,
  guard: AttemptGuard,
): Promise<boolean> {
  return withOptimisticRetry(
    async (n) => {
      const current =
        n === 1
          ? delivery
          : (
              await WebhookDelivery.get({ tenantId: delivery.tenantId, id: delivery.id }).go({
                consistent: true,
              })
            ).data;
      if (!current || !guardHolds(current, guard)) return false;
      const made = attemptCountOf(current);
      const { responseBody, ...attempt } = change.attempt;
      const stored = withoutUndefined({
        ...attempt,
        number: made + 1,
        ...(responseBody === undefined
          ? {}
          : { responseBody: utf8Prefix(responseBody, KEPT_RESPONSE_BODY_BYTES) }),
      });
      const now = new Date().toISOString();
      let update = WebhookDelivery.patch({ tenantId: delivery.tenantId, id: delivery.id }).set({
        status: change.status,
        updatedAt: now,
        attempts: [...current.attempts.map((kept) => withoutUndefined(kept)), stored].slice(-KEPT_ATTEMPTS),
        attemptCount: made + 1,
        ...(change.nextAttemptAt ? { nextAttemptAt: change.nextAttemptAt } : {}),
        ...(change.autoAttempts !== undefined ? { autoAttempts: change.autoAttempts } : {}),
        ...(change.scheduleToken ? { scheduleToken: change.scheduleToken } : {}),
        ...('requestId' in guard ? { handledRequestId: guard.requestId } : {}),
        // An attempt was made: the ladder moves, so the sweeper's back-off starts again.
        sweeps: 0,
      });
      if (!change.nextAttemptAt) update = update.remove(['nextAttemptAt']);
      update =
        current.attemptCount === undefined
          ? update.where(({ attemptCount }, { notExists }) => notExists(attemptCount))
          : update.where(({ attemptCount }, { eq }) => eq(attemptCount, made));
      if ('scheduleToken' in guard) {
        update = update.where(({ scheduleToken }, { eq }) => eq(scheduleToken, guard.scheduleToken));
      } else {
        update = update.where(
          ({ handledRequestId }, { notExists, ne }) =>
            `(${notExists(handledRequestId)} OR ${ne(handledRequestId, guard.requestId)})`,
        );
      }
      try {
        await update.go();
        return true;
      } catch (error) {
        // The guard or the count moved: the next round re-reads and tells which.
        if (isConditionalFailure(error)) return RETRY;
        throw error;
      }
    },
    { attempts: EDIT_ATTEMPTS, exhausted: () => false },
  );
}

/**
 * Gives up a delivery that fell due while its endpoint was disabled or gone: failed, no next
 * attempt, redeliverable by hand. Guarded like `recordAttempt`.
 */
export async function failWithoutAttempt(
  delivery: WebhookDeliveryRecord,
  guard: { scheduleToken: string } | { requestId: string },
): Promise<void> {
  const now = new Date().toISOString();
  const update = WebhookDelivery.patch({ tenantId: delivery.tenantId, id: delivery.id })
    .set({
      status: delivery.status === 'succeeded' ? 'succeeded' : 'failed',
      updatedAt: now,
      ...('requestId' in guard ? { handledRequestId: guard.requestId } : {}),
    })
    .remove(['nextAttemptAt']);
  try {
    if ('scheduleToken' in guard) {
      await update.where(({ scheduleToken }, { eq }) => eq(scheduleToken, guard.scheduleToken)).go();
    } else {
      await update.go();
    }
  } catch (error) {
    if (!isConditionalFailure(error)) throw error;
  }
}

/** Asks for a send (redeliver or test): the stream consumer queues it (an outbox on the record). */
export async function requestSend(
  tenantId: string,
  id: string,
  trigger: 'manual' | 'test',
  requestId: string,
): Promise<WebhookDeliveryRecord> {
  const { data } = await WebhookDelivery.patch({ tenantId, id })
    .set({ sendRequestId: requestId, sendRequestTrigger: trigger, updatedAt: new Date().toISOString() })
    .go({ response: 'all_new' });
  return data as WebhookDeliveryRecord;
}
