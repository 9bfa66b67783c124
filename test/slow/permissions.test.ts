/**
 * The permissions check of `npm run test:slow` (its own vitest project, after the others): the IAM
 * grants against every AWS operation this run's files recorded (test/support/permission-grants.ts).
 * The slow run reaches only some functions in process (the full fuzz reaches every operation; the
 * soak and the restart tests run the stack in child processes, which record nothing), so it does not
 * require a record of every function: `npm test` does.
 */
import { describeGrantsOfRecordedOperations } from '../support/permission-grants.ts';

describeGrantsOfRecordedOperations({ name: 'npm run test:slow', everyFunctionRecorded: false });
