import { execFile } from 'node:child_process';
import { mkdirSync, rmSync, statSync } from 'node:fs';
import { relative, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { build, type Metafile } from 'esbuild';
import { routes } from '../../functions/routes.ts';
import { esbuildOptions } from '../../lib/bundling.ts';
import { coldStartEnv } from './env.ts';
import { round, type Summary, summarize } from './stats.ts';

const run = promisify(execFile);
const ROOT = resolve(import.meta.dirname, '../..');

export interface HandlerEntry {
  name: string;
  /** Relative to the repository root. */
  entry: string;
}

/** Every Lambda the stack deploys: one per route-table row, the stream consumer and the AI workers. */
export function handlerEntries(): HandlerEntry[] {
  return [
    ...routes.map((r) => ({ name: r.operationId, entry: `functions/http/${r.entry}` })),
    { name: 'streamConsumer', entry: 'functions/streams/consumer.ts' },
    { name: 'aiWorker', entry: 'functions/workers/ai.ts' },
    { name: 'aiResume', entry: 'functions/workers/ai-resume.ts' },
  ];
}

export interface PackageShare {
  /** npm package name, or "(project)" for our own source. */
  name: string;
  kb: number;
  percent: number;
  /** The package's largest sub-folder, e.g. zod's `v4/locales`: often the actual culprit. */
  largestFolder?: { folder: string; kb: number };
}

export interface BundleResult {
  name: string;
  entry: string;
  file: string;
  kb: number;
  /** What the minified output is made of, largest first (from esbuild's metafile). */
  composition: PackageShare[];
}

/** `node_modules/@scope/pkg/a/b/c.js` → package and its first two sub-folders. */
function locate(input: string): { pkg: string; folder: string } {
  const match = input.match(/(?:^|\/)node_modules\/((?:@[^/]+\/)?[^/]+)\/(.*)$/);
  if (!match) return { pkg: '(project)', folder: input.split('/').slice(0, 2).join('/') };
  const rest = (match[2] ?? '').split('/').slice(0, -1);
  return { pkg: match[1] ?? '?', folder: rest.slice(0, 2).join('/') || '.' };
}

export function composition(output: Metafile['outputs'][string]): PackageShare[] {
  const total = Object.values(output.inputs).reduce((sum, i) => sum + i.bytesInOutput, 0) || 1;
  const packages = new Map<string, { bytes: number; folders: Map<string, number> }>();
  for (const [input, { bytesInOutput }] of Object.entries(output.inputs)) {
    const { pkg, folder } = locate(input);
    const entry = packages.get(pkg) ?? { bytes: 0, folders: new Map<string, number>() };
    entry.bytes += bytesInOutput;
    entry.folders.set(folder, (entry.folders.get(folder) ?? 0) + bytesInOutput);
    packages.set(pkg, entry);
  }
  return [...packages.entries()]
    .sort((a, b) => b[1].bytes - a[1].bytes)
    .map(([name, { bytes, folders }]) => {
      const [folder, folderBytes] = [...folders.entries()].sort((a, b) => b[1] - a[1])[0] ?? ['.', 0];
      return {
        name,
        kb: round(bytes / 1024),
        percent: round((bytes / total) * 100),
        // Only worth naming when one folder is a real part of the package (not its only folder).
        ...(folders.size > 1 && folderBytes / bytes >= 0.25
          ? { largestFolder: { folder, kb: round(folderBytes / 1024) } }
          : {}),
      };
    });
}

/** Bundles every handler with exactly the deployed settings (lib/bundling.ts). */
export async function bundleHandlers(outDir: string, log: (line: string) => void): Promise<BundleResult[]> {
  rmSync(outDir, { recursive: true, force: true });
  mkdirSync(outDir, { recursive: true });
  const results: BundleResult[] = [];
  for (const { name, entry } of handlerEntries()) {
    const file = resolve(outDir, `${name}.mjs`);
    const { metafile } = await build({ ...esbuildOptions(resolve(ROOT, entry), file), absWorkingDir: ROOT });
    const output = metafile?.outputs[relative(ROOT, file)];
    if (!output) throw new Error(`esbuild produced no ${file}`);
    // The .mjs alone: the source map is uploaded too but is not loaded unless --enable-source-maps.
    const kb = round(statSync(file).size / 1024);
    results.push({ name, entry, file, kb, composition: composition(output) });
    log(`  bundled ${name}: ${kb} KB`);
  }
  return results;
}

/** What each fresh process runs: nothing but the import, timed from inside. */
const PROBE =
  'const t = performance.now(); await import(process.argv[1]); process.stdout.write(String(performance.now() - t));';

async function loadOnce(file: string): Promise<number> {
  const { stdout } = await run(
    process.execPath,
    ['--input-type=module', '-e', PROBE, pathToFileURL(file).href],
    {
      env: coldStartEnv(),
      timeout: 30_000,
    },
  );
  const ms = Number(stdout.trim());
  if (!Number.isFinite(ms)) throw new Error(`import probe for ${file} printed "${stdout}"`);
  return ms;
}

/**
 * Cold module-load time of each bundle over `runs` fresh processes. Runs go round-robin over the
 * handlers, one process at a time, so a burst of load from another engineer on the shared cores
 * spreads over all handlers instead of skewing one; one discarded pass first warms the OS file cache.
 */
export async function measureModuleLoad(
  bundles: readonly BundleResult[],
  runs: number,
  log: (line: string) => void,
): Promise<Map<string, Summary>> {
  for (const b of bundles) await loadOnce(b.file);
  const samples = new Map<string, number[]>(bundles.map((b) => [b.name, []]));
  for (let i = 1; i <= runs; i++) {
    for (const b of bundles) samples.get(b.name)?.push(await loadOnce(b.file));
    log(`  module-load pass ${i}/${runs}`);
  }
  return new Map([...samples.entries()].map(([name, values]) => [name, summarize(values)]));
}
