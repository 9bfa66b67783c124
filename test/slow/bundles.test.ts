/**
 * The real bundling of every function, as `npx cdk synth` and `cdk deploy` do it: the app synthesized
 * with esbuild bundling on (lib/bundling.ts, one build per function, through CDK's local bundling),
 * then each asset checked. Minutes on a loaded 2-core machine, so it is a long proof of
 * `npm run test:slow`; the gate's infra files read the same app's templates without bundling
 * (test/infra/api.test.ts) and test/int/lambda-bundle.test.ts runs bundled handlers.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { routes } from '../../functions/routes.ts';
import { workers } from '../../functions/workers.ts';
import { buildApp } from '../../lib/app.ts';
import { bundlingDefaults } from '../../lib/bundling.ts';
import { DEPLOY_CONTEXT } from '../infra/deploy-context.ts';

let assemblyDir: string;

beforeAll(() => {
  // Prepare + Act: the deployable app, every function bundled, synthesized once for the file.
  assemblyDir = buildApp({ stage: 'test', context: DEPLOY_CONTEXT }).app.synth().directory;
}, 900_000);

describe('every function bundled as deployed', () => {
  it('are bundled as minified ESM with the shared banner, a source map and the SDK inside', () => {
    // Prepare
    const bundles = readdirSync(assemblyDir)
      .filter((name) => name.startsWith('asset.'))
      .map((name) => join(assemblyDir, name))
      .filter((dir) => existsSync(join(dir, 'index.mjs')));

    // Act
    const sources = bundles.map((dir) => readFileSync(join(dir, 'index.mjs'), 'utf8'));

    // Assess: one bundle per route and per worker at least (the site preflight has one too).
    expect(bundles.length).toBeGreaterThanOrEqual(routes.length + workers.length);
    for (const dir of bundles) expect(existsSync(join(dir, 'index.mjs.map'))).toBe(true);
    for (const source of sources) {
      expect(source.startsWith(bundlingDefaults.banner)).toBe(true);
      expect(source).not.toMatch(/from\s*["']@aws-sdk\//);
    }
  });
});
