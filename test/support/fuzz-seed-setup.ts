import { randomInt } from 'node:crypto';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The seed test/slow/fuzz.test.ts draws its requests from. */
    fuzzSeed: number;
  }
}

/**
 * The slow run's fuzz seed, drawn afresh for each run (so the fuzzing searches, instead of sending
 * the same requests again) unless `FUZZ_SEED` names one, and printed before any test runs: the line
 * to copy to replay a failure.
 */
export default function setup(project: TestProject): void {
  const given = process.env.FUZZ_SEED;
  const seed = given === undefined || given === '' ? randomInt(1, 2 ** 31 - 1) : Number(given);
  if (!Number.isSafeInteger(seed)) throw new Error(`FUZZ_SEED=${given}: expected an integer`);
  console.log(
    `fuzz seed ${seed}${given ? ' (from FUZZ_SEED)' : ''}: FUZZ_SEED=${seed} npm run test:slow sends the same requests again`,
  );
  project.provide('fuzzSeed', seed);
}
