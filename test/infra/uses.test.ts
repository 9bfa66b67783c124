/**
 * `uses` checked against the code: CDK grants a function only what its row (functions/routes.ts,
 * functions/workers.ts) `uses`, so a row that forgets a port deploys a function that fails on
 * first use in AWS, while every local test passes (the local adapters need no grant).
 *
 * Each function's entry is bundled as it is deployed (esbuild, tree-shaken), and the port accessors
 * of functions/kernel/ports/ that survive in the bundle are the ports its code can reach: an accessor
 * no code path calls is shaken out. Each must be declared by the row, and each declared port must be
 * reached (a grant nothing uses is a grant too many).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';
import type { RouteDefinition, RouteUse } from '../../functions/api/route.ts';
import { routes } from '../../functions/routes.ts';
import { type WorkerUse, workers } from '../../functions/workers.ts';
import { exportsHandler } from '../../scripts/bench/bundles.ts';

const ROOT = resolve(import.meta.dirname, '../..');
const PORTS = 'functions/kernel/ports';

type Use = RouteUse | WorkerUse;

/**
 * Each port's accessor (the function that returns the bound adapter) and the `uses` names that grant
 * what its AWS adapter calls: a port behind several grants (the queue port sends to the AI or the
 * photo import queue; the photo store is scoped per prefix) is declared by any one of them. A new
 * port must be added here (a test below insists).
 */
const PORT_ACCESSORS: Record<string, readonly Use[]> = {
  queue: ['aiQueue', 'imageQueue'],
  emails: ['email'],
  enrichmentProvider: ['bedrock'],
  scoringProvider: ['bedrock'],
  webhookLadder: ['webhookQueue'],
  photoStore: ['photoUpload', 'photoConfirm', 'photoDelete', 'photoImport'],
};

/** Uses no accessor shows (the ladder's schedules are the same port as its queue, past 15 minutes). */
const REFINEMENTS: Partial<Record<Use, Use>> = { webhookSchedules: 'webhookQueue' };

interface Row {
  name: string;
  entry: string;
  uses: readonly string[];
}

const rows: Row[] = [
  ...(routes as readonly RouteDefinition[]).map((r) => ({
    name: r.operationId,
    entry: `functions/http/${r.entry}`,
    uses: r.uses ?? [],
  })),
  ...workers.map((w) => ({ name: w.name, entry: w.entry, uses: w.uses })),
];

/** The port accessors that survive in a tree-shaken bundle of `source`. */
async function reachedPorts(source: { entry: string } | { contents: string }): Promise<string[]> {
  const result = await build({
    ...('entry' in source
      ? { entryPoints: [source.entry] }
      : { stdin: { contents: source.contents, resolveDir: ROOT, loader: 'ts' as const } }),
    absWorkingDir: ROOT,
    bundle: true,
    write: false,
    format: 'esm',
    platform: 'node',
    // Only our own code decides which ports are reached; packages need not be read.
    packages: 'external',
    treeShaking: true,
    minify: false,
    logLevel: 'silent',
  });
  const code = result.outputFiles[0]?.text ?? '';
  // esbuild keeps the name, with a number added when two modules' names collide.
  return Object.keys(PORT_ACCESSORS)
    .filter((accessor) => new RegExp(`\\bfunction ${accessor}\\d*\\(`).test(code))
    .sort();
}

/**
 * What a row reaches and does not declare (a reached port none of whose uses it declares), and what
 * it declares and never reaches (a use whose port no reached accessor stands for).
 */
function mismatch(row: Row, reached: readonly string[]) {
  const declared = new Set(row.uses.map((use) => REFINEMENTS[use as Use] ?? use));
  const reachable = new Set(reached.flatMap((accessor) => PORT_ACCESSORS[accessor] ?? []));
  return {
    undeclared: reached
      .filter((accessor) => !(PORT_ACCESSORS[accessor] ?? []).some((use) => declared.has(use)))
      .map((accessor) => (PORT_ACCESSORS[accessor] ?? []).join('|')),
    unreached: [...declared].filter((use) => !reachable.has(use as Use)),
  };
}

describe("each function's uses against the ports its code reaches", () => {
  it('knows the accessor of every port of functions/kernel/ports', () => {
    // Act
    const accessors = readdirSync(resolve(ROOT, PORTS))
      .map((file) => readFileSync(resolve(ROOT, PORTS, file), 'utf8'))
      .flatMap((source) => [...source.matchAll(/export function (\w+)\(\)[^{]*\{\s*return port\.get\(\);/g)])
      .map((match) => match[1]);
    // Assess
    expect(accessors.sort()).toEqual(Object.keys(PORT_ACCESSORS).sort());
  });

  it('declares every port a route or worker reaches, and reaches every port it declares', async () => {
    // Act
    const wrong: Record<string, { undeclared: string[]; unreached: string[] }> = {};
    for (const row of rows) {
      const found = mismatch(row, await reachedPorts({ entry: row.entry }));
      if (found.undeclared.length + found.unreached.length > 0) wrong[row.name] = found;
    }
    // Assess
    expect(wrong, 'fix the row in functions/routes.ts or functions/workers.ts').toEqual({});
    expect(rows.filter((r) => r.uses.length > 0).length).toBeGreaterThanOrEqual(6);
  }, 120_000);

  it('has a worker row for every handler module of functions/streams and functions/workers', () => {
    // Act
    const handlers = ['functions/streams', 'functions/workers']
      .flatMap((folder) => readdirSync(resolve(ROOT, folder)).map((file) => `${folder}/${file}`))
      .filter((entry) => entry.endsWith('.ts') && exportsHandler(readFileSync(resolve(ROOT, entry), 'utf8')));
    // Assess
    expect(handlers.sort()).toEqual(workers.map((w) => w.entry).sort());
  });
});

describe('the check itself', () => {
  it('sees a port reached through another module, and reports it when the row does not declare it', async () => {
    // Prepare: a handler that sends to the AI queue through a helper of its own
    const contents = `import { queue } from './functions/kernel/ports/queue.ts';
const send = (body: unknown) => queue().send('ai', body);
export const handler = (event: unknown) => send(event);`;
    // Act
    const reached = await reachedPorts({ contents });
    // Assess
    expect(reached).toEqual(['queue']);
    expect(mismatch({ name: 'synthetic', entry: '-', uses: [] }, reached)).toEqual({
      undeclared: ['aiQueue|imageQueue'],
      unreached: [],
    });
    expect(mismatch({ name: 'synthetic', entry: '-', uses: ['aiQueue', 'email'] }, reached)).toEqual({
      undeclared: [],
      unreached: ['email'],
    });
  });

  it('does not count a port whose module is imported but whose accessor no code path calls', async () => {
    // Prepare: the AI provider's module is loaded (as a service that imports it loads it), never called
    const contents = `import { setEnrichmentProvider } from './functions/kernel/ports/ai-provider.ts';
import { queue } from './functions/kernel/ports/queue.ts';
export const unbind = () => setEnrichmentProvider(undefined);
export const handler = (event: unknown) => queue().send('ai', event);`;
    // Act
    const reached = await reachedPorts({ contents });
    // Assess
    expect(reached).toEqual(['queue']);
  });
});
