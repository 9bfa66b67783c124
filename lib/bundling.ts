import type { BuildOptions } from 'esbuild';

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
  /**
   * Nothing is taken from the runtime, the AWS SDK v3 included: what is deployed is what the tests
   * ran, and the bundled SDK loads faster than the runtime-provided one (measured by `npm run bench`).
   */
  external: [] as string[],
} as const;

/**
 * The same settings as esbuild's own build options, for code that runs esbuild directly (the bench,
 * the bundle test) and must produce what NodejsFunction deploys. NodejsFunction takes the banner as
 * a plain string and adds `bundle` and the paths itself; none of that changes the output.
 */
export function esbuildOptions(entry: string, outfile: string): BuildOptions {
  return {
    ...bundlingDefaults,
    mainFields: [...bundlingDefaults.mainFields],
    external: [...bundlingDefaults.external],
    banner: { js: bundlingDefaults.banner },
    entryPoints: [entry],
    outfile,
    bundle: true,
    metafile: true,
    logLevel: 'error',
  };
}
