import { describe, expect, it } from 'vitest';
import { formatDuration, progressLine, terminalProgress } from '../../scripts/admin/progress.ts';

function stream(isTTY: boolean) {
  const written: string[] = [];
  return { isTTY, written, write: (text: string) => written.push(text) };
}

describe('admin CLI progress', () => {
  it('states count, share, rate and time left', () => {
    expect(progressLine('listing import', 250, 1000, 6_000)).toBe(
      'listing import: 250/1000 (25%), 42/s, 18s left',
    );
    expect(progressLine('area recompute', 3, 4, 2_000)).toBe('area recompute: 3/4 (75%), 1.5/s, 1s left');
    expect(progressLine('place import', 10, 10, 4_000)).toBe('place import: 10/10 (100%), 2.5/s, done');
    expect(progressLine('place import', 0, 10, 0)).toBe('place import: 0/10 (0%)');
    expect([formatDuration(5), formatDuration(185), formatDuration(3725)]).toEqual([
      '5s',
      '3m 05s',
      '1h 02m',
    ]);
  });

  it('writes nothing when stderr is not a terminal', () => {
    const out = stream(false);
    const report = terminalProgress('listing import', out, () => 0);
    for (let i = 1; i <= 5; i++) report(i, 5);
    expect(out.written).toEqual([]);
  });

  it('on a terminal, redraws one line at most every interval and ends it on the last item', () => {
    // Prepare
    const out = stream(true);
    let now = 0;
    const report = terminalProgress('listing import', out, () => now, 250);
    // Act: items every 100 ms
    for (let i = 1; i <= 6; i++) {
      now += 100;
      report(i, 6);
    }
    // Assess: drawn at 100 ms, 400 ms and on the last item
    expect(out.written).toEqual([
      '\r\x1b[2Klisting import: 1/6 (16%), 10/s, 1s left',
      '\r\x1b[2Klisting import: 4/6 (66%), 10/s, 0s left',
      '\r\x1b[2Klisting import: 6/6 (100%), 10/s, done\n',
    ]);
  });
});
