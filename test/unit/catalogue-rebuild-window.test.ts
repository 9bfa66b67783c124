import { describe, expect, it } from 'vitest';
import {
  type CatalogueRebuildResult,
  REBUILD_POLL_MS,
  REBUILD_WINDOW_MS,
  type RebuildLoop,
  runCatalogueRebuildsUntil,
} from '../../functions/services/catalogue-rebuild.ts';

const START = Date.parse('2026-11-26T22:00:00.000Z');

/** A rebuilder over markers due at the given seconds after START, on a clock moved only by its sleeps. */
function fakeRebuilder(dueSeconds: number[]) {
  let clock = START;
  const pending = new Map(dueSeconds.map((s, i) => [`t${i}`, START + s * 1000]));
  const runs: number[] = [];
  const rebuiltAt = new Map<string, number>();
  const loop: RebuildLoop = {
    now: () => new Date(clock),
    sleep: async (ms) => {
      clock += ms;
    },
    anyDueBy: async (by) => [...pending.values()].some((due) => due <= by.getTime()),
    runDue: async (now) => {
      runs.push((now.getTime() - START) / 1000);
      const done: CatalogueRebuildResult[] = [];
      for (const [tenantId, due] of pending) {
        if (due > now.getTime()) continue;
        pending.delete(tenantId);
        rebuiltAt.set(tenantId, (now.getTime() - START) / 1000);
        done.push({
          tenantId,
          source: 'catch-up',
          listings: 1,
          watermark: undefined,
          storedBytes: 1,
          written: true,
        });
      }
      return done;
    },
  };
  return { loop, runs, rebuiltAt };
}

describe('a scheduled catalogue rebuild run', () => {
  it('with no marker coming due makes one pass and returns at once', async () => {
    // Prepare
    const fake = fakeRebuilder([75]);
    // Act
    const done = await runCatalogueRebuildsUntil(new Date(START + REBUILD_WINDOW_MS), fake.loop);
    // Assess
    expect(done).toEqual([]);
    expect(fake.runs).toEqual([0]);
  });

  it('rebuilds a marker that comes due within its window a poll after it is due, not at the next run', async () => {
    // Prepare: one due now, one due 12 s in, one due after the window (the next run's)
    const fake = fakeRebuilder([-3, 12, 57]);
    // Act
    const done = await runCatalogueRebuildsUntil(new Date(START + REBUILD_WINDOW_MS), fake.loop);
    // Assess
    expect(done.map((r) => r.tenantId)).toEqual(['t0', 't1']);
    expect(fake.rebuiltAt.get('t1')).toBeLessThanOrEqual(12 + REBUILD_POLL_MS / 1000);
    expect(fake.rebuiltAt.has('t2')).toBe(false);
    expect(fake.runs).toEqual([0, 5, 10, 15]);
  });

  it('never runs past its window, so two scheduled runs do not overlap', async () => {
    // Prepare: markers coming due all through the window
    const fake = fakeRebuilder([2, 9, 21, 33, 44, 49]);
    // Act
    await runCatalogueRebuildsUntil(new Date(START + REBUILD_WINDOW_MS), fake.loop);
    // Assess
    expect(Math.max(...fake.runs)).toBeLessThanOrEqual(REBUILD_WINDOW_MS / 1000);
    expect(REBUILD_WINDOW_MS + REBUILD_POLL_MS).toBeLessThanOrEqual(60_000);
    expect([...fake.rebuiltAt.keys()]).toHaveLength(6);
  });
});
