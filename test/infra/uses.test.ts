/**
 * `uses` checked against the code: CDK grants a function only what its row (functions/routes.ts,
 * functions/workers.ts) `uses`, and the Lambda entry binds the AWS adapters of those ports alone
 * (lib/bundling.ts, functions/kernel/ports/aws-bindings.ts), so a row that forgets a port deploys a
 * function that fails on first use in AWS, while every local test passes (the local stack binds
 * every local adapter).
 *
 * Each function's generated entry is bundled as it is deployed (esbuild, tree-shaken), and the port
 * accessors of functions/kernel/ports/ that survive in the bundle are the ports its code can reach:
 * an accessor no code path calls is shaken out, and binding a port's AWS adapter does not call it.
 * Each must be declared by the row, and each declared port must be reached (a grant nothing uses is
 * a grant too many).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';
import { AWS_PORTS_BY_USE, type AwsUse } from '../../functions/kernel/ports/aws-bindings.ts';
import type { RouteDefinition, RouteUse } from '../../functions/pipeline/route.ts';
import { routes } from '../../functions/routes.ts';
import { type WorkerUse, workers } from '../../functions/workers.ts';
import { type FunctionEntry, lambdaEntrySource } from '../../lib/bundling.ts';
import { exportsHandler } from '../../scripts/bench/sections/cold-start.ts';

const ROOT = resolve(import.meta.dirname, '../..');
const PORTS = 'functions/kernel/ports';

type Use = RouteUse | WorkerUse;

/** True when the `uses` names of the rows and the ones aws-bindings.ts knows are the same set. */
type SameUses = [Exclude<Use, AwsUse>, Exclude<AwsUse, Use>] extends [never, never] ? true : false;
const sameUses: SameUses = true;

/** Each port module's accessor: the function that returns the bound adapter (`return port.get();`). */
const accessorOf = new Map(
  readdirSync(resolve(ROOT, PORTS)).flatMap((file) => {
    const source = readFileSync(resolve(ROOT, PORTS, file), 'utf8');
    const match = source.match(/export function (\w+)\(\)[^{]*\{\s*return port\.get\(\);/);
    return match?.[1] ? [[file, match[1]] as const] : [];
  }),
);

/**
 * Each port's accessor and the `uses` names that bind it (and grant what its AWS adapter calls): a
 * port behind several grants (the queue port sends to the AI or the photo import queue; the photo
 * store is scoped per prefix) is declared by any one of them.
 */
const PORT_ACCESSORS: Record<string, Use[]> = {};
for (const [use, files] of Object.entries(AWS_PORTS_BY_USE) as [Use, readonly string[]][]) {
  for (const file of files) {
    const accessor = accessorOf.get(file) ?? `(no accessor in ${file})`;
    PORT_ACCESSORS[accessor] = [...(PORT_ACCESSORS[accessor] ?? []), use];
  }
}

/** Uses no accessor shows apart (the ladder's schedules are the same port as its queue, past 15 minutes). */
const REFINEMENTS: Partial<Record<Use, Use>> = { webhookSchedules: 'webhookQueue' };

interface Row {
  name: string;
  /** What the row's function bundles (its generated entry binds the row's uses). */
  entry: FunctionEntry;
  uses: readonly string[];
}

const rows: Row[] = [
  ...(routes as readonly RouteDefinition[]).map((r) => ({
    name: r.operationId,
    entry: { module: `functions/http/${r.entry}`, route: r },
    uses: r.uses ?? [],
  })),
  ...workers.map((w) => ({ name: w.name, entry: { module: w.entry }, uses: w.uses })),
];

/** The port accessors that survive in a tree-shaken bundle of the module source `contents`. */
async function reachedPorts(contents: string): Promise<string[]> {
  const result = await build({
    stdin: { contents, resolveDir: ROOT, loader: 'ts' },
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
  it('knows the accessor of every port of functions/kernel/ports, and binds each from some use', () => {
    // Act
    const bound = new Set(Object.values(AWS_PORTS_BY_USE).flat());
    const withBinder = readdirSync(resolve(ROOT, PORTS)).filter((file) =>
      /export function bindAwsAdapter\(\)/.test(readFileSync(resolve(ROOT, PORTS, file), 'utf8')),
    );
    // Assess
    expect(sameUses).toBe(true);
    expect([...bound].sort()).toEqual([...accessorOf.keys()].sort());
    expect(withBinder.sort()).toEqual([...accessorOf.keys()].sort());
    expect(Object.keys(PORT_ACCESSORS).sort()).toEqual([...accessorOf.values()].sort());
  });

  it('declares every port a route or worker reaches, and reaches every port it declares', async () => {
    // Act
    const wrong: Record<string, { undeclared: string[]; unreached: string[] }> = {};
    for (const row of rows) {
      const found = mismatch(row, await reachedPorts(lambdaEntrySource(row.entry)));
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
    const reached = await reachedPorts(contents);
    // Assess
    expect(reached).toEqual(['queue']);
    expect(mismatch({ name: 'synthetic', entry: { module: '-' }, uses: [] }, reached)).toEqual({
      undeclared: ['aiQueue|imageQueue'],
      unreached: [],
    });
    expect(
      mismatch({ name: 'synthetic', entry: { module: '-' }, uses: ['aiQueue', 'email'] }, reached),
    ).toEqual({
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
    const reached = await reachedPorts(contents);
    // Assess
    expect(reached).toEqual(['queue']);
  });

  it('does not count a port the generated entry only binds: a declared use no code reaches is reported', async () => {
    // Prepare: an operation that reaches no port (reading a Lead) as a row that declares email and the AI queue
    const getLead = routes.find((r) => r.operationId === 'getLead') as RouteDefinition;
    const row: Row = {
      name: 'synthetic',
      entry: {
        module: `functions/http/${getLead.entry}`,
        route: { ...getLead, uses: ['email', 'aiQueue'] },
      },
      uses: ['email', 'aiQueue'],
    };
    const source = lambdaEntrySource(row.entry);
    // Act
    const reached = await reachedPorts(source);
    // Assess
    expect(source).toMatch(/bindAwsAdapter as \w+ } from "\.\/functions\/kernel\/ports\/email\.ts"/);
    expect(reached).toEqual([]);
    expect(mismatch(row, reached)).toEqual({ undeclared: [], unreached: ['email', 'aiQueue'] });
  });
});
