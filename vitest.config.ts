import { configDefaults, defineConfig, type TestProjectInlineConfiguration } from 'vitest/config';
import ProjectTimesReporter from './test/support/project-times-reporter.ts';

/**
 * Two commands share these projects (test/unit/test-projects.test.ts checks that each test file
 * runs in exactly one project and each project in exactly one command):
 *
 * - `npm test`, the gate for one change (at most 5 minutes on 2 cores): {@link GATE_PROJECTS};
 * - `npm run test:slow`, the long proofs (soaks, full fuzz, restarts, browser, real bundling):
 *   {@link SLOW_PROJECTS}.
 *
 * package.json passes each list to `vitest run` as `--project` flags.
 */
export const GATE_PROJECTS = ['unit', 'int', 'e2e', 'infra', 'permissions'] as const;
export const SLOW_PROJECTS = ['slow', 'browser', 'slow-permissions'] as const;

const GATE_WORKERS = Number(process.env.VITEST_MAX_WORKERS ?? 6);
/** The soaks and the restarts time their own processes: fewer files beside them. */
const SLOW_WORKERS = Number(process.env.VITEST_MAX_WORKERS ?? 2);

/** Each command's permissions check reads what that command's int and e2e files recorded: it runs last. */
const GATE_PERMISSIONS_TEST = 'test/infra/permissions.test.ts';
const SLOW_PERMISSIONS_TEST = 'test/slow/permissions.test.ts';

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
    // Files at once. The gate's int and e2e files mostly wait (on DynamoDB Local, the pollers, the
    // settle windows): two at a time left 0.8 of the two cores idle (119% CPU), four 0.3 (169%), six
    // keep both busy (187%; docs/testing.md has the figures). The slow projects run two at a time
    // (SLOW_WORKERS). VITEST_MAX_WORKERS overrides both, to measure.
    maxWorkers: GATE_WORKERS,
    // The default report, then the time each project took (test/support/project-times-reporter.ts).
    reporters: ['default', new ProjectTimesReporter()],
    // Transformed modules kept on disk between runs (node_modules/.experimental-vitest-cache): a
    // second run transforms only what changed.
    experimental: { fsModuleCache: true },
    projects: [
      // ── npm test ──
      // Pure rules and adapters at the SDK edge, and the generated documents.
      project('unit', {
        include: ['test/unit/**/*.test.ts', 'test/docs/**/*.test.ts'],
        isolate: false,
        ...WITHOUT_DYNAMODB,
      }),
      // Services, workers, the stream consumer and the bundled handlers on DynamoDB Local.
      project('int', { include: ['test/int/**/*.test.ts'], ...ON_DYNAMODB }),
      // The real HTTP server, the admin CLI and `npm start` itself.
      project('e2e', { include: ['test/e2e/**/*.test.ts'], ...ON_DYNAMODB }),
      // CDK assertions, cdk-nag, and each function's uses against its bundle.
      project('infra', {
        include: ['test/infra/**/*.test.ts'],
        exclude: [...configDefaults.exclude, GATE_PERMISSIONS_TEST],
        isolate: false,
        ...WITHOUT_DYNAMODB,
      }),
      project('permissions', { include: [GATE_PERMISSIONS_TEST], sequence: { groupOrder: 1 } }),
      // ── npm run test:slow ──
      // The long proofs: both soaks, the fuzzing on a new seed (printed first by its global setup),
      // the restarts of `npm start` (the stack, the webhook ladder mid-way) and the real bundling.
      project('slow', {
        include: ['test/slow/**/*.test.ts'],
        exclude: [...configDefaults.exclude, SLOW_PERMISSIONS_TEST],
        ...ON_DYNAMODB,
        globalSetup: [...ON_DYNAMODB.globalSetup, 'test/support/fuzz-seed-setup.ts'],
        maxWorkers: SLOW_WORKERS,
        // After the gate's projects if both commands' projects are run at once (plain `vitest run`).
        sequence: { groupOrder: 2 },
      }),
      // The example website and the reference page in a real Chromium, against `npm start` (its own
      // DynamoDB Local): skipped with a message when no Chromium is installed (.ci/run installs it).
      project('browser', {
        include: ['test/browser/**/*.test.ts'],
        ...WITHOUT_DYNAMODB,
        maxWorkers: SLOW_WORKERS,
        sequence: { groupOrder: 2 },
      }),
      project('slow-permissions', { include: [SLOW_PERMISSIONS_TEST], sequence: { groupOrder: 3 } }),
    ],
  },
});
