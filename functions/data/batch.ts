import { ServiceUnavailableError } from '../kernel/errors.ts';

/**
 * BatchWriteItem and BatchGetItem answer 200 while leaving part of the request undone
 * (UnprocessedItems / UnprocessedKeys) when a partition is throttled; ElectroDB hands those back as
 * `unprocessed` and never retries them. DynamoDB asks for a retry with exponential backoff, so every
 * batch call of the data layer goes through `untilProcessed`: a bounded number of attempts, then a
 * loud failure instead of a silently missing membership, label or record.
 */
export const BATCH_ATTEMPTS = 6;
const BASE_DELAY_MS = 25;
const MAX_DELAY_MS = 1_000;

/** Some items of a batch call were still unprocessed after every attempt (503: retry later). */
export class BatchIncompleteError extends ServiceUnavailableError {
  readonly operation: string;
  readonly remaining: number;
  constructor(operation: string, remaining: number) {
    super(`${operation}: ${remaining} item(s) still unprocessed after ${BATCH_ATTEMPTS} attempts`);
    this.operation = operation;
    this.remaining = remaining;
  }
}

/** Full jitter (a random wait up to the exponential bound), so throttled callers do not retry in step. */
function backoff(attempt: number): Promise<void> {
  const bound = Math.min(MAX_DELAY_MS, BASE_DELAY_MS * 2 ** attempt);
  return new Promise((resolve) => setTimeout(resolve, Math.random() * bound));
}

/**
 * Sends `items` with `send`, which performs one batch call and returns the items it left
 * unprocessed; those are sent again after a backoff until none remain or the attempts run out
 * (BatchIncompleteError). Reads collect what they found inside `send`.
 */
export async function untilProcessed<T>(
  operation: string,
  items: readonly T[],
  send: (batch: T[]) => Promise<readonly T[]>,
): Promise<void> {
  let pending = [...items];
  for (let attempt = 0; pending.length > 0; attempt++) {
    if (attempt === BATCH_ATTEMPTS) throw new BatchIncompleteError(operation, pending.length);
    if (attempt > 0) await backoff(attempt);
    pending = [...(await send(pending))];
  }
}

/** The items whose key is among `unprocessed` (ElectroDB returns an unprocessed write's key, not its item). */
export function itemsOfKeys<T, K>(
  items: readonly T[],
  unprocessed: readonly K[],
  same: (item: T, key: K) => boolean,
): T[] {
  return items.filter((item) => unprocessed.some((key) => same(item, key)));
}
