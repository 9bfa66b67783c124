import { resolve } from 'node:path';
import type { BuildOptions } from 'esbuild';

const stubs = resolve(import.meta.dirname, '../functions/platform/bundling');

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
   * Nothing is taken from the runtime: what is deployed is what the tests ran. The functions' AWS
   * calls go through functions/platform/aws (signed JSON requests), not SDK clients.
   */
  external: [] as string[],
  /**
   * Modules replaced in Lambda bundles by smaller ones that do what Lambda needs: the SDK's full
   * credential chain (SSO, INI files, STS web identity, IMDS) is dead weight where the credentials
   * are always in the environment (−90 KB).
   */
  alias: {
    '@aws-sdk/credential-provider-node': resolve(stubs, 'lambda-credentials.ts'),
    /**
     * ElectroDB requires `@aws-sdk/lib-dynamodb` for its command classes only; the service sends
     * them with its own DocumentClient (functions/data/dynamodb), whose commands have the same names
     * and inputs. Without this the SDK's DynamoDB client (~270 KB) would be bundled for nothing.
     */
    '@aws-sdk/lib-dynamodb': resolve(import.meta.dirname, '../functions/data/dynamodb/commands.ts'),
  } as Record<string, string>,
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
