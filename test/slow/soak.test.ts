/**
 * The soak in `npm run test:slow` (issues 24 and 34): `npm run soak -- --minutes 1 --seed 7` as a
 * child process, each part its own process with the DynamoDB faults on, its parts killed and
 * restarted, then the audit on a settled stack; and three planted faults (scripts/soak/plants.ts),
 * rotating with the run's seed, each of which the audit must fail and name.
 */
import { spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { describe, expect, inject, it } from 'vitest';
import { PLANT_VERDICTS, PLANTS, plantsForSeed } from '../../scripts/soak/plants.ts';

const ROOT = resolve(import.meta.dirname, '../..');

interface SoakRun {
  code: number | null;
  output: string;
}

/** The soak script as `npm run soak -- …` runs it, with none of the test run's own settings. */
function runSoak(args: string[]): Promise<SoakRun> {
  const childEnv: NodeJS.ProcessEnv = { ...process.env };
  for (const name of Object.keys(childEnv)) {
    if (/^(DYNAMODB_ENDPOINT|TABLE_NAME|S3_ENDPOINT|VITEST|SOAK_PLANT)/.test(name)) delete childEnv[name];
  }
  return new Promise((resolveRun, reject) => {
    const child = spawn(process.execPath, ['scripts/soak/main.ts', ...args], {
      cwd: ROOT,
      env: childEnv,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString('utf8');
    });
    child.stderr.on('data', (chunk: Buffer) => {
      output += chunk.toString('utf8');
    });
    child.once('error', reject);
    child.once('exit', (code) => resolveRun({ code, output }));
  });
}

describe('npm run soak', () => {
  it('a minute of traffic with kill -9s loses nothing and duplicates nothing (seed 7)', async () => {
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
      // Half a minute at a quicker pace: enough changes of every kind for each plant to lose some.
      const run = await runSoak([
        '--minutes',
        '0.5',
        '--seed',
        String(seed % 1000),
        '--drain-seconds',
        '300',
        '--pause-ms',
        '300',
        '--plant',
        plant,
      ]);
      // Assess
      expect(run.output).toContain(`PLANTED: ${plant}`);
      expect(run.output).toContain('SOAK FAILED');
      expect(run.output).toMatch(PLANT_VERDICTS[plant]);
      expect(run.code, run.output.slice(-4000)).toBe(1);
    }, 900_000);
  }
});
