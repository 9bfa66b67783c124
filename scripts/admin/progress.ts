/**
 * Progress of a long admin command (listing import, place import, area recompute) on stderr: count,
 * rate and time left, redrawn in place. Only for a person at a terminal: when stderr is a pipe or a
 * file (scripts, CI, tests) nothing is written, so stderr carries errors only.
 */

/** Reports that `done` of `total` items are finished. */
export type ProgressReporter = (done: number, total: number) => void;

/** `1h 02m`, `3m 05s`, `12s`. */
export function formatDuration(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  if (s >= 3600) return `${Math.floor(s / 3600)}h ${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}m`;
  if (s >= 60) return `${Math.floor(s / 60)}m ${String(s % 60).padStart(2, '0')}s`;
  return `${s}s`;
}

/** `listing import: 250/1000 (25%), 41.7/s, 18s left`; the rate once at least one item is done. */
export function progressLine(label: string, done: number, total: number, elapsedMs: number): string {
  const percent = total ? Math.floor((done / total) * 100) : 100;
  const head = `${label}: ${done}/${total} (${percent}%)`;
  if (done === 0 || elapsedMs <= 0) return head;
  const rate = done / (elapsedMs / 1000);
  const left = done >= total ? 'done' : `${formatDuration((total - done) / rate)} left`;
  return `${head}, ${rate >= 10 ? rate.toFixed(0) : rate.toFixed(1)}/s, ${left}`;
}

/** The stream progress is drawn on: process.stderr, or a stand-in in tests. */
export interface ProgressStream {
  isTTY?: boolean;
  write(text: string): unknown;
}

/**
 * A reporter for `label` that redraws one line on `stream` at most every `intervalMs` (and always
 * on the last item), or does nothing when `stream` is not a terminal.
 */
export function terminalProgress(
  label: string,
  stream: ProgressStream = process.stderr,
  clock: () => number = () => performance.now(),
  intervalMs = 250,
): ProgressReporter {
  if (!stream.isTTY) return () => undefined;
  const started = clock();
  let drawn = Number.NEGATIVE_INFINITY;
  return (done, total) => {
    const now = clock();
    const last = done >= total;
    if (!last && now - drawn < intervalMs) return;
    drawn = now;
    // \r and "erase line" redraw in place; the last line stays, followed by a newline.
    stream.write(`\r\x1b[2K${progressLine(label, done, total, now - started)}${last ? '\n' : ''}`);
  };
}
