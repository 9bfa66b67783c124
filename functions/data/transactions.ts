import { ConflictError } from '../kernel/errors.ts';
import { RETRY, withOptimisticRetry } from './optimistic.ts';

/** One member's answer in a cancelled ElectroDB write transaction. */
interface MemberOutcome {
  rejected: boolean;
  code: string;
}

/** What ElectroDB's `transaction.write(…).go()` answers. */
interface TransactionResult {
  canceled: boolean;
  data: unknown;
}

/**
 * Reasons DynamoDB cancels a transaction for that say nothing about the data: another transaction or
 * write was on one of its items at the same moment (`TransactionConflict`), or the table was
 * throttled. Retrying is the documented answer; only `ConditionalCheckFailed` is a verdict on the data.
 */
const TRANSIENT_REASONS = new Set([
  'TransactionConflict',
  'ThrottlingError',
  'ProvisionedThroughputExceeded',
]);

/** Attempts of one transaction cancelled for transient reasons: at 10% conflicts, 6 all fail once in 10⁶. */
export const TRANSACTION_ATTEMPTS = 6;

/** The members' outcomes of a cancelled transaction (ElectroDB's `data` when `canceled`). */
export function cancellationOutcomes(result: TransactionResult): MemberOutcome[] {
  return result.canceled ? (result.data as MemberOutcome[]) : [];
}

/**
 * The index of the member whose condition failed, or -1: which claim was taken, whether the item
 * was stale. Only `ConditionalCheckFailed` counts; a member cancelled for another reason is not a
 * verdict on its condition.
 */
export function failedCondition(result: TransactionResult): number {
  return cancellationOutcomes(result).findIndex((member) => member.code === 'ConditionalCheckFailed');
}

/**
 * Runs an ElectroDB write transaction (`send` builds and sends it, so each attempt starts afresh)
 * until DynamoDB decides it on the data: it lands, or a condition fails (the caller reads which with
 * `failedCondition`). A cancellation for a conflict or a throttle is retried after a short random
 * pause; when every attempt was cancelled so, 409 (the items are being written concurrently). Any
 * other reason (a validation error, a collection size limit) is a fault of the request we built.
 */
export async function writeTransaction<R extends TransactionResult>(send: () => Promise<R>): Promise<R> {
  return withOptimisticRetry<R>(
    async () => {
      const result = await send();
      const reasons = cancellationOutcomes(result).filter((member) => member.rejected);
      if (reasons.some((member) => member.code === 'ConditionalCheckFailed')) return result;
      if (reasons.length > 0 && reasons.every((member) => TRANSIENT_REASONS.has(member.code))) return RETRY;
      if (reasons.length > 0) {
        throw new Error(`Transaction cancelled: ${reasons.map((member) => member.code).join(', ')}`);
      }
      return result;
    },
    {
      attempts: TRANSACTION_ATTEMPTS,
      exhausted: () => {
        throw new ConflictError('These records are being written concurrently; retry');
      },
    },
  );
}
