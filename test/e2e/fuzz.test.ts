/**
 * The gate's sample of the fuzzing (test/support/fuzz-suite.ts): every operation of docs/openapi.json
 * gets one valid and three mutated requests, always the same ones (a fixed seed). It is a regression
 * test, not a search: it keeps every operation reached, so that every function leaves the AWS
 * operations the permissions check reads (test/infra/permissions.test.ts). The search itself, on a new
 * seed each run and many more requests, is test/slow/fuzz.test.ts in `npm run test:slow`.
 */
import { describeFuzzOfEveryOperation } from '../support/fuzz-suite.ts';

/** The gate's seed: fixed, so that `npm test` sends the same requests every run. */
const GATE_SEED = 20261116;

describeFuzzOfEveryOperation({
  seed: GATE_SEED,
  validRuns: 1,
  mutatedRuns: 3,
  replay: "the gate's fixed seed: npx vitest run test/e2e/fuzz.test.ts",
});
