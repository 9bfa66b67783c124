import { afterEach, describe, expect, it, vi } from 'vitest';
import { resetConfig } from '../../functions/kernel/config.ts';
import {
  MIN_OVERDUE_AFTER_MS,
  OVERDUE_AFTER_MS,
  overdueAfterMsFor,
} from '../../functions/services/webhook-sweeper.ts';
import { type WorkerDefinition, workerFor } from '../../functions/workers.ts';
import { localPeriodMsOf, startWorker } from '../../scripts/local/workers.ts';

type ScheduledRow = WorkerDefinition & { trigger: { kind: 'schedule' } };
const sweeper = workerFor('webhookSweeper') as ScheduledRow;
const rebuild = workerFor('catalogueRebuild') as ScheduledRow;

describe('the sweeper timed by the shrunk ladder', () => {
  it('sweeps locally every 15 minutes × RETRY_DELAY_SCALE, at least once a second', () => {
    expect(localPeriodMsOf(sweeper, 1)).toBe(15 * 60_000);
    expect(localPeriodMsOf(sweeper, 0.01)).toBe(9_000);
    expect(localPeriodMsOf(sweeper, 0.0005)).toBe(1_000); // the soak's: 450 ms, raised to the floor
  });

  it('leaves the period of a row not timed by the ladder as its row says', () => {
    expect(localPeriodMsOf(rebuild, 0.0005)).toBe(rebuild.trigger.localEveryMs);
  });

  it('takes a rung for lost after 15 minutes × RETRY_DELAY_SCALE, never under 30 s', () => {
    expect(overdueAfterMsFor(1)).toBe(OVERDUE_AFTER_MS);
    expect(overdueAfterMsFor(0.1)).toBe(90_000);
    expect(overdueAfterMsFor(0.0005)).toBe(MIN_OVERDUE_AFTER_MS);
  });

  describe('run by the local stack', () => {
    const scaleBefore = process.env.RETRY_DELAY_SCALE;
    afterEach(() => {
      vi.useRealTimers();
      if (scaleBefore === undefined) delete process.env.RETRY_DELAY_SCALE;
      else process.env.RETRY_DELAY_SCALE = scaleBefore;
      resetConfig();
    });

    it('runs the sweeper at start, then at its scaled period (the soak: every second)', async () => {
      // Prepare: the soak's scale, and a sweep that only counts
      process.env.RETRY_DELAY_SCALE = '0.0005';
      resetConfig();
      vi.useFakeTimers();
      let sweeps = 0;
      const sweep = async () => {
        sweeps++;
      };
      // Act
      const running = await startWorker(
        sweeper,
        { endpoint: 'http://127.0.0.1:9', tableName: 'unused' },
        sweep,
      );
      const atStart = sweeps;
      await vi.advanceTimersByTimeAsync(3_000);
      running.stop();
      // Assess
      expect(atStart).toBe(1);
      expect(sweeps).toBe(4);
    });

    it('never starts a sweep while the last one runs: a slow sweep skips the ticks it outlasts', async () => {
      // Prepare: the soak's scale, and sweeps that take 2.5 s (a loaded DynamoDB Local) against a 1 s period
      process.env.RETRY_DELAY_SCALE = '0.0005';
      resetConfig();
      vi.useFakeTimers();
      let started = 0;
      let running = 0;
      let mostAtOnce = 0;
      const slowSweep = async () => {
        started++;
        running++;
        mostAtOnce = Math.max(mostAtOnce, running);
        await new Promise((resolve) => setTimeout(resolve, 2_500));
        running--;
      };
      // Act
      const worker = await startWorker(
        sweeper,
        { endpoint: 'http://127.0.0.1:9', tableName: 'unused' },
        slowSweep,
      );
      await vi.advanceTimersByTimeAsync(6_000);
      worker.stop();
      // Assess: one at a time; started at 0 s, 3 s (the first tick after 2.5 s) and 6 s
      expect(mostAtOnce).toBe(1);
      expect(started).toBe(3);
    });
  });
});
