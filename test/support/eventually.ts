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
  { timeoutMs = 10_000, intervalMs = 100 }: { timeoutMs?: number; intervalMs?: number } = {},
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value) || Date.now() >= deadline) return value;
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
