/**
 * The soak's planted faults in `npm run test:slow` (docs/testing.md, Soak): three of them a run, rotating
 * with the run's seed (printed at the start of test:slow), each planted in a half-minute soak
 * (scripts/soak/plants.ts): the audit must fail and name the loss.
 */
import { describe, expect, inject, it } from 'vitest';
import { PLANT_VERDICTS, PLANTS, plantsForSeed } from '../../scripts/soak/plants.ts';
import { runSoak } from '../support/soak-run.ts';

/**
 * Without the faults whose failed work waits out a queue's 6-minute visibility timeout (a throttle
 * past the retries, an answer lost): a plant is about the audit naming a loss, and the drain is then
 * the ladder's two minutes. The one-minute soak (soak.test.ts) runs with them.
 */
const QUICK_DRAIN = { DYNAMODB_FAULTS_PAST_RETRIES_RATE: '0', DYNAMODB_FAULTS_AMBIGUOUS_RATE: '0' };

describe('npm run soak --plant', () => {
  it('lists its plants', async () => {
    // Act
    const run = await runSoak(['--list-plants']);
    // Assess
    for (const name of Object.keys(PLANTS)) expect(run.output).toContain(name);
    expect(run.code).toBe(0);
  });

  // Three plants a run, rotating with the run's seed (printed at the start of test:slow).
  const seed = inject('fuzzSeed');
  for (const plant of plantsForSeed(seed)) {
    it(`fails, naming the loss, when planted with ${plant} (seed ${seed})`, async () => {
      // Act
      // A minute at a quicker pace and without kills: enough changes of every kind for each plant
      // to lose some, and a drain that is not waiting out a killed worker's messages.
      const run = await runSoak(
        [
          '--minutes',
          '1',
          '--seed',
          String(seed % 1000),
          '--drain-seconds',
          '600',
          '--pause-ms',
          '500',
          '--kills-per-part',
          '0',
          '--plant',
          plant,
        ],
        QUICK_DRAIN,
      );
      // Assess
      expect(run.output).toContain(`PLANTED: ${plant}`);
      expect(run.output).toContain('SOAK FAILED');
      expect(run.output).toMatch(PLANT_VERDICTS[plant]);
      expect(run.code, run.output.slice(-4000)).toBe(1);
    }, 900_000);
  }
});
