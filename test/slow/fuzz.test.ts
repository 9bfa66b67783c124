/**
 * Fuzzing (test/support/fuzz-suite.ts) on a new seed each run: `npm run test:slow` draws it and prints
 * it first (test/support/fuzz-seed-setup.ts); `FUZZ_SEED=N npm run test:slow` sends exactly the same
 * requests again (test/e2e/fuzz-runner.test.ts proves it), and `FUZZ_RUNS=<requests per property>`
 * sends more. A failure names the seed and the shrunk request.
 */
import { inject } from 'vitest';
import { fuzzRuns } from '../support/fuzz.ts';
import { describeFuzzOfEveryOperation } from '../support/fuzz-suite.ts';

const seed = inject('fuzzSeed');

describeFuzzOfEveryOperation({
  seed,
  validRuns: fuzzRuns(4),
  mutatedRuns: fuzzRuns(4) * 2,
  replay: `FUZZ_SEED=${seed} npm run test:slow`,
});
