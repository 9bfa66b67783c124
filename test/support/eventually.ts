import { dynamoFaultSettingsFromEnv, settleDynamoWrites } from '../../scripts/local/dynamodb-faults.ts';

/**
 * How long a test waits between two reads of something that is not there yet. Each read is a
 * request and a DynamoDB call that six test files at once share two cores with; what it waits for
 * (the stream consumer, a settle window, an index) takes hundreds of milliseconds to seconds, so
 * reading four times a second finds it as soon, give or take a quarter second, at a fraction of
 * the work of reading ten times.
 */
export const POLL_MS = 250;

/**
 * Reads until `done` holds, for what is eventually consistent on AWS: a list or search served by a
 * global secondary index may miss a write for a moment (the tests' DynamoDB fault injection answers
 * such reads as of up to 500 ms ago), exactly as an integrator listing right after a write may.
 * Returns the first value that satisfies `done`, or the last one read once `timeoutMs` has passed,
 * so that the test's own assertion reports what was there.
 */
export async function eventually<T>(
  read: () => Promise<T>,
  done: (value: T) => boolean,
  { timeoutMs = 10_000, intervalMs = POLL_MS }: { timeoutMs?: number; intervalMs?: number } = {},
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value) || Date.now() >= deadline) return value;
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

/**
 * Lets the index lag pass after the writes a test has just made, before the code under test reads
 * them through an index (the round-robin's active Agents, a list right after a create): on AWS a
 * GSI follows its table within about a second; under the tests' fault injection, a read is answered
 * at most `DYNAMODB_FAULTS_STALE_MS` in the past. The injector of this process is told that every
 * write so far has reached the indexes (`settleDynamoWrites`), which is what waiting would achieve,
 * without the sleep; only where no injector runs in this process is the window slept out. Nothing
 * to wait for when stale reads are off.
 */
export async function afterIndexLag(): Promise<void> {
  const faults = dynamoFaultSettingsFromEnv();
  if (!faults || faults.staleRate <= 0) return;
  if (settleDynamoWrites()) return;
  await new Promise((resolve) => setTimeout(resolve, faults.staleMs + 50));
}

/**
 * Starts a test early in a one-minute window, for tests of the per-minute budgets whose requests must
 * all fall in one window: past the 40th second of a minute it waits for the next one to begin. A wait,
 * not an assertion on time (`beforeEach(earlyInMinute)`).
 */
export async function earlyInMinute(): Promise<void> {
  const intoWindow = Date.now() % 60_000;
  if (intoWindow > 40_000) await new Promise((resolve) => setTimeout(resolve, 60_500 - intoWindow));
}
