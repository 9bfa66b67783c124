/**
 * The native package of the photo import worker (sharp, with libvips): left out of its esbuild bundle
 * and shipped in its asset's node_modules with the Linux build for the function's processor, as
 * lib/bundling.ts copies it at synth. Loaded here from a folder outside the repository, as Lambda
 * would load it: nothing but the asset can resolve it.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { RouteDefinition } from '../../functions/pipeline/route.ts';
import { routes } from '../../functions/routes.ts';
import { workers } from '../../functions/workers.ts';
import { architectureOf, copyNativeModules, esbuildOptions, nativeModulesOf } from '../../lib/bundling.ts';

const PHOTO_WORKER = { module: 'functions/workers/image-import.ts' };
const dirs: string[] = [];
const freshDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'lls-native-'));
  dirs.push(dir);
  return dir;
};
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

describe('native packages in the bundle', () => {
  it('ships sharp with its Linux x64 build and dependencies beside the photo worker’s bundle, loadable there alone', () => {
    // Prepare
    const dir = freshDir();
    // Act
    const copied = copyNativeModules(PHOTO_WORKER, dir);
    writeFileSync(
      join(dir, 'probe.mjs'),
      `const { default: sharp } = await import('sharp');
const webp = await sharp({ create: { width: 8, height: 6, channels: 3, background: '#336699' } }).webp().toBuffer();
process.stdout.write(JSON.stringify({ webp: webp.subarray(8, 12).toString('latin1') }));`,
    );
    const probe = JSON.parse(execFileSync(process.execPath, ['probe.mjs'], { cwd: dir, encoding: 'utf8' }));
    // Assess
    expect(copied).toEqual(
      expect.arrayContaining([
        'sharp',
        '@img/sharp-linux-x64',
        '@img/sharp-libvips-linux-x64',
        'detect-libc',
      ]),
    );
    expect(copied.filter((name) => /arm64|darwin|win32|musl|wasm/.test(name))).toEqual([]);
    expect(probe).toEqual({ webp: 'WEBP' });
    expect(esbuildOptions(PHOTO_WORKER, dir).external).toContain('sharp');
  });

  it('runs that worker alone on x86_64 and ships sharp in it alone; every other function is arm64 with no native package', () => {
    // Act
    const entries = [
      ...workers.map((w) => ({ module: w.entry })),
      ...(routes as readonly RouteDefinition[]).map((r) => ({
        module: `functions/http/${r.entry}`,
        route: r,
      })),
    ];
    const odd = entries.filter((e) => architectureOf(e) !== 'arm64' || nativeModulesOf(e).length > 0);
    // Assess
    expect(odd.map((e) => [e.module, architectureOf(e), nativeModulesOf(e)])).toEqual([
      ['functions/workers/image-import.ts', 'x86_64', ['sharp']],
    ]);
  });

  it('fails the synth, naming the command, when the build for the function’s processor is not installed', () => {
    // Act + Assess: npm installs the build of the machine it runs on (x64 here), not arm64's.
    expect(() => copyNativeModules(PHOTO_WORKER, freshDir(), 'arm64')).toThrow(
      /@img\/sharp-linux-arm64 is not installed.*--cpu=arm64/,
    );
  });
});
