/**
 * The soak in `npm run test:slow` (issues 24 and 34): `npm run soak -- --minutes 1 --seed 7` as a
 * child process, each part its own process with the DynamoDB faults on, its parts killed and
 * restarted, then the audit on a settled stack. Its planted faults: test/slow/soak-plants.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { runSoak } from '../support/soak-run.ts';

describe('npm run soak', () => {
  it('a minute of traffic with kill -9s of the API and the workers loses nothing and duplicates nothing (seed 7)', async () => {
    // Act
    // A Tenant pauses 1.5 s between requests: a third of the traffic, so the drain fits CI's budget.
    const run = await runSoak([
      '--minutes',
      '1',
      '--seed',
      '7',
      '--drain-seconds',
      '600',
      '--pause-ms',
      '1500',
    ]);
    // Assess
    expect(run.output).toContain('SOAK PASSED');
    expect(run.output).toMatch(/settled after \d+ s/);
    expect(run.output).toMatch(/kill -9: stream [1-9]\d*, webhooks [1-9]\d*, api [1-9]\d*/);
    expect(run.output).toMatch(/ok {3}ladder walked +6 of 6/);
    expect(run.code, run.output).toBe(0);
  }, 900_000);
});
