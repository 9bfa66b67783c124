import { configDefaults, defineConfig, type TestProjectInlineConfiguration } from 'vitest/config';

/** Reads what the int and e2e tests recorded, so it runs after all of them (a later group). */
const PERMISSIONS_TEST = 'test/infra/permissions.test.ts';

/**
 * Tests of code on DynamoDB Local: one in-memory instance for the run, its AWS operations recorded,
 * made as strict as DynamoDB by fault injection (DYNAMODB_FAULTS=off turns it off).
 */
const ON_DYNAMODB = {
  globalSetup: ['test/support/global-setup.ts'],
  setupFiles: [
    'test/support/env.ts',
    'test/support/record-aws-operations.ts',
    'test/support/dynamodb-faults-setup.ts',
  ],
};

/** Tests that must not touch DynamoDB: no instance is started, and the endpoint refuses connections. */
const WITHOUT_DYNAMODB = { setupFiles: ['test/support/env.ts'] };

/** A project of the tests of one kind, each its own folder; `npm run test:<name>` runs it alone. */
function project(name: string, test: TestProjectInlineConfiguration['test']): TestProjectInlineConfiguration {
  return { extends: true, test: { name, ...test } };
}

export default defineConfig({
  test: {
    pool: 'forks',
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Two cores: a couple of files at once keeps DynamoDB Local busy without starving it.
    maxWorkers: 2,
    projects: [
      // Pure rules and adapters at the SDK edge, and the generated documents.
      project('unit', { include: ['test/unit/**/*.test.ts', 'test/docs/**/*.test.ts'], ...WITHOUT_DYNAMODB }),
      // Services, workers, the stream consumer and the bundled handlers on DynamoDB Local.
      project('int', { include: ['test/int/**/*.test.ts'], ...ON_DYNAMODB }),
      // The real HTTP server, the admin CLI and `npm start` itself.
      project('e2e', { include: ['test/e2e/**/*.test.ts'], ...ON_DYNAMODB }),
      // CDK assertions, cdk-nag, and each function's uses against its bundle.
      project('infra', {
        include: ['test/infra/**/*.test.ts'],
        exclude: [...configDefaults.exclude, PERMISSIONS_TEST],
        ...WITHOUT_DYNAMODB,
      }),
      project('permissions', { include: [PERMISSIONS_TEST], sequence: { groupOrder: 1 } }),
      // The example website and the reference page in a real Chromium, against `npm start` (its own
      // DynamoDB Local): skipped with a message when no Chromium is installed (.ci/run installs it).
      project('browser', { include: ['test/browser/**/*.test.ts'], ...WITHOUT_DYNAMODB }),
    ],
  },
});
