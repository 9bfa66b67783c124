import { configDefaults, defineConfig } from 'vitest/config';

/** Reads what the other tests recorded, so it runs after all of them (a later group). */
const PERMISSIONS_TEST = 'test/infra/permissions.test.ts';

export default defineConfig({
  test: {
    pool: 'forks',
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Two cores: a couple of files at once keeps DynamoDB Local busy without starving it.
    maxWorkers: 2,
    projects: [
      {
        extends: true,
        test: {
          name: 'service',
          include: ['test/**/*.test.ts'],
          exclude: [...configDefaults.exclude, PERMISSIONS_TEST],
          globalSetup: ['test/support/global-setup.ts'],
          setupFiles: ['test/support/env.ts', 'test/support/record-aws-operations.ts'],
        },
      },
      {
        extends: true,
        test: {
          name: 'permissions',
          include: [PERMISSIONS_TEST],
          sequence: { groupOrder: 1 },
        },
      },
    ],
  },
});
