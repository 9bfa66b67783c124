/**
 * How every Lambda is bundled, shared by the CDK functions (lib/constructs/service-function.ts)
 * and the bench (scripts/bench), so that what the bench measures is what is deployed.
 * ESM + minify + `module` first: measured ~48 ms module load against ~122 ms for CJS defaults.
 */
export const bundlingDefaults = {
  format: 'esm',
  platform: 'node',
  target: 'node24',
  minify: true,
  sourcemap: true,
  mainFields: ['module', 'main'],
  /** ESM output still meets CJS dependencies that call require(); give them one. */
  banner:
    "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);",
  /** The SDK is bundled (not taken from the runtime) so the version is the one we test. */
  external: [] as string[],
} as const;
