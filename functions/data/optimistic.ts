/**
 * Optimistic concurrency, one way for every read-decide-write of the service: an attempt reads the
 * item, decides, and writes only if the item is still the version it read; when another writer got
 * there first, it answers `RETRY` and the next attempt starts from a fresh read, after a short
 * random pause (so the writers that lost spread out instead of colliding again).
 */

/** What an attempt answers when its conditional write found the item changed. */
export const RETRY: unique symbol = Symbol('optimistic-retry');
export type Retry = typeof RETRY;

/**
 * Attempts for an edit of one item by a person or a worker (PATCH, a score, an enrichment result):
 * such an item has a few writers at most, and each round lets one of them land.
 */
export const EDIT_ATTEMPTS = 8;

/**
 * Attempts for an item many requests write at once: the Lead of a contact that integrations send
 * in bursts. Each round lands at least one writer, so N concurrent writers need up to N rounds; 40
 * is twice the burst the tests hold the service to (20 concurrent ingests of one email).
 */
export const CONTENDED_ATTEMPTS = 40;

/** The pause before attempt `attempt + 1`: random, growing with the attempts, at most 100 ms. */
function pause(attempt: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, Math.random() * Math.min(100, 10 * attempt)));
}

/**
 * Runs `attempt` (numbered from 1) until it answers something other than `RETRY`, at most
 * `attempts` times; when every attempt lost, answers what `exhausted` returns (or throws: a 409
 * on request paths, `false` for a worker that lets a newer change win).
 */
export async function withOptimisticRetry<T>(
  attempt: (n: number) => Promise<T | Retry>,
  options: { attempts: number; exhausted: () => T },
): Promise<T> {
  for (let n = 1; n <= options.attempts; n++) {
    const outcome = await attempt(n);
    if (outcome !== RETRY) return outcome as T;
    if (n < options.attempts) await pause(n);
  }
  return options.exhausted();
}
