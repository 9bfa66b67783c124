/**
 * The one timestamp rule of every write that replaces a version: now, but strictly later than the
 * version it replaces. Versions are then ordered even when the clock stands still or steps back,
 * an `updatedAt` condition always names one version, and keys derived from it (search tokens,
 * list cursors) never collide with the previous version's.
 */
export function nextTimestamp(previous?: string): string {
  const floor = previous ? Date.parse(previous) + 1 : 0;
  return new Date(Math.max(Date.now(), floor)).toISOString();
}
