import { mkdirSync, readFileSync, rmSync } from 'node:fs';
import { basename, join, relative, resolve } from 'node:path';
import { gzipSync } from 'node:zlib';
import { build, type Metafile } from 'esbuild';
import type { RouteDefinition } from '../../functions/api/route.ts';
import { routes } from '../../functions/routes.ts';
import { workers } from '../../functions/workers.ts';
import { esbuildOptions, HANDLER_FILE, staticClosure } from '../../lib/bundling.ts';
import { round } from './stats.ts';

const ROOT = resolve(import.meta.dirname, '../..');

export interface HandlerEntry {
  name: string;
  /** Relative to the repository root. */
  entry: string;
  kind: 'http' | 'stream' | 'worker' | 'floor';
  /** An HTTP function's row of the route table: its bundle registers this row alone, as deployed. */
  route?: RouteDefinition;
}

/** The floor handler (floor/handler.ts): what every function is judged against. */
export const FLOOR: HandlerEntry = { name: 'floor', entry: 'scripts/bench/floor/handler.ts', kind: 'floor' };

/** `functions/workers/webhook-delivery.ts` → `webhookDelivery`. */
export function camelName(file: string): string {
  const base = basename(file).replace(/\.ts$/, '');
  return base.replace(/[-_.]+(\w)/g, (_m, c: string) => c.toUpperCase());
}

/** Whether a module's source exports a Lambda `handler` (test/infra/uses.test.ts finds worker modules without a row with it). */
export function exportsHandler(source: string): boolean {
  return /export\s+(?:async\s+function|const|function|let)\s+handler\b|export\s*\{[^}]*\bhandler\b[^}]*\}/.test(
    source,
  );
}

/**
 * Every Lambda the stack deploys: one per route-table row (functions/routes.ts), then one per
 * worker-table row (functions/workers.ts), named as the stacks name them. A stream-fed worker is of
 * kind `stream`, any other of kind `worker`.
 */
export function handlerEntries(): HandlerEntry[] {
  const http = routes.map(
    (r): HandlerEntry => ({
      name: r.operationId,
      entry: `functions/http/${r.entry}`,
      kind: 'http',
      route: r,
    }),
  );
  const asyncEntries = workers.map(
    (w): HandlerEntry => ({
      name: w.name,
      entry: w.entry,
      kind: w.trigger.kind === 'stream' ? 'stream' : 'worker',
    }),
  );
  return [...http, ...asyncEntries];
}

export interface PackageShare {
  /** npm package name, or "(project)" for our own source. */
  name: string;
  kb: number;
  percent: number;
  /** The package's largest sub-folder, e.g. zod's `v4/locales`: often the actual culprit. */
  largestFolder?: { folder: string; kb: number };
}

export interface BundleResult extends HandlerEntry {
  /** The handler module (`index.mjs`) in the function's own output folder, beside its chunks. */
  file: string;
  /**
   * What Node reads and compiles before the handler's first line runs, KB: the entry and the chunks
   * it imports statically (minified). Chunks reached only by a dynamic `import()` are not in it.
   */
  kb: number;
  /** The same gzipped (level 9). */
  gzipKb: number;
  /** The chunks only a dynamic `import()` loads (an SDK client a code path needs), KB on disk. */
  lazyKb: number;
  /** What the code loaded at import is made of, largest first (from esbuild's metafile). */
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

/** The inputs of several outputs as one, for {@link composition}. */
function mergedOutput(metafile: Metafile, files: readonly string[]): Metafile['outputs'][string] {
  const inputs: Metafile['outputs'][string]['inputs'] = {};
  for (const file of files) {
    for (const [input, share] of Object.entries(metafile.outputs[file]?.inputs ?? {})) {
      inputs[input] = { bytesInOutput: (inputs[input]?.bytesInOutput ?? 0) + share.bytesInOutput };
    }
  }
  return { bytes: 0, inputs, imports: [], exports: [] };
}

/**
 * Bundles one handler exactly as CDK deploys it (lib/bundling.ts: the generated entry, code
 * splitting) into its own folder. The floor is bundled the same way: its SDK's own dynamic imports
 * (credential providers) become chunks too.
 */
export async function bundleOne(entry: HandlerEntry, outDir: string): Promise<BundleResult> {
  const dir = resolve(outDir, entry.name);
  const options = esbuildOptions(
    { module: entry.entry, ...(entry.route ? { route: entry.route } : {}) },
    dir,
  );
  const { metafile } = await build(options);
  if (!metafile) throw new Error(`esbuild produced no metafile for ${entry.name}`);
  const file = join(dir, HANDLER_FILE);
  const handlerOutput = relative(ROOT, file);
  if (!metafile.outputs[handlerOutput]) throw new Error(`esbuild produced no ${file}`);
  const loaded = staticClosure(metafile, handlerOutput);
  // The .mjs files alone: the source maps are uploaded too but are not read unless --enable-source-maps.
  const code = Buffer.concat(loaded.map((output) => readFileSync(resolve(ROOT, output))));
  const lazyBytes = Object.entries(metafile.outputs)
    .filter(([output]) => output.endsWith('.mjs') && !loaded.includes(output))
    .reduce((sum, [, output]) => sum + output.bytes, 0);
  return {
    ...entry,
    file,
    kb: round(code.length / 1024),
    gzipKb: round(gzipSync(code, { level: 9 }).length / 1024),
    lazyKb: round(lazyBytes / 1024),
    composition: composition(mergedOutput(metafile, loaded)),
  };
}

/** Bundles the floor and every handler (handlerEntries), floor first. */
export async function bundleHandlers(outDir: string, log: (line: string) => void): Promise<BundleResult[]> {
  rmSync(outDir, { recursive: true, force: true });
  mkdirSync(outDir, { recursive: true });
  const results: BundleResult[] = [];
  for (const entry of [FLOOR, ...handlerEntries()]) {
    const result = await bundleOne(entry, outDir);
    results.push(result);
    log(
      `  bundled ${entry.name}: ${result.kb} KB loaded at import (${result.gzipKb} KB gzipped), ${result.lazyKb} KB in chunks loaded on use`,
    );
  }
  return results;
}
