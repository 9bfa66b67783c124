import { execFile } from 'node:child_process';
import { copyFile, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, normalize } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * The layers of functions/ (docs/architecture.md, Layers) are guarded by Biome's noRestrictedImports overrides in
 * biome.json. These tests plant imports in a scratch copy of the layout, lint it with the project's
 * own biome.json, and check that every upward import is refused and every permitted one passes; and
 * they walk the real import graph for circles.
 */

const root = join(import.meta.dirname, '../..');
const biome = join(root, 'node_modules/.bin/biome');
let scratch: string;

beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'layers-'));
  await copyFile(join(root, 'biome.json'), join(scratch, 'biome.json'));
});
afterAll(async () => {
  await rm(scratch, { recursive: true, force: true });
});

interface Diagnostic {
  category: string;
  message: string;
  location: { path: string };
}

/** Lints one planted file `path` importing `specifier`; the noRestrictedImports messages it gets. */
async function restrictedMessages(path: string, specifier: string): Promise<string[]> {
  const file = join(scratch, path);
  await mkdir(dirname(file), { recursive: true });
  await writeFile(file, `import type { X } from '${specifier}';\n\nexport type Y = X;\n`);
  const output = await promisify(execFile)(biome, ['lint', '--vcs-enabled=false', '--reporter=json', path], {
    cwd: scratch,
  }).then(
    (ok) => ok.stdout,
    (failed: { stdout: string }) => failed.stdout,
  );
  await rm(file);
  const report = JSON.parse(output) as { diagnostics: Diagnostic[] };
  return report.diagnostics
    .filter((d) => d.category === 'lint/style/noRestrictedImports')
    .map((d) => d.message);
}

describe('layer guards (biome.json noRestrictedImports)', () => {
  const refused: [string, string][] = [
    ['functions/domain/rule.ts', '../kernel/logger.ts'],
    ['functions/domain/rule.ts', '../data/leads.ts'],
    ['functions/kernel/thing.ts', '../data/leads.ts'],
    ['functions/kernel/ports/thing.ts', '../../services/leads.ts'],
    ['functions/data/thing.ts', '../services/caller.ts'],
    ['functions/data/entities/thing.ts', '../../contract/leads.ts'],
    ['functions/contract/thing.ts', '../services/leads.ts'],
    ['functions/contract/thing.ts', '../api/answers.ts'],
    ['functions/services/thing.ts', '../api/request-state.ts'],
    ['functions/services/thing.ts', '../http/leads/get-lead.ts'],
    ['functions/streams/thing.ts', '../api/operation.ts'],
    ['functions/workers/thing.ts', '../http/leads/get-lead.ts'],
    ['functions/api/thing.ts', '../http/leads/get-lead.ts'],
  ];
  it.each(refused)('%s may not import %s', async (path, specifier) => {
    const messages = await restrictedMessages(path, specifier);
    expect(messages).toHaveLength(1);
  });

  const permitted: [string, string][] = [
    ['functions/domain/rule.ts', './leads.ts'],
    ['functions/kernel/thing.ts', '../domain/leads.ts'],
    ['functions/data/thing.ts', '../kernel/errors.ts'],
    ['functions/contract/thing.ts', '../data/leads.ts'],
    ['functions/services/thing.ts', '../contract/leads.ts'],
    ['functions/streams/thing.ts', '../services/leads.ts'],
    ['functions/api/thing.ts', '../services/caller.ts'],
    ['functions/http/leads/thing.ts', '../../api/operation.ts'],
  ];
  it.each(permitted)('%s may import %s', async (path, specifier) => {
    expect(await restrictedMessages(path, specifier)).toEqual([]);
  });
});

/** Every .ts file under functions/ and the relative modules it imports (static and dynamic). */
async function importGraph(): Promise<Map<string, string[]>> {
  const base = join(root, 'functions');
  const files = (await readdir(base, { recursive: true }))
    .filter((f) => f.endsWith('.ts'))
    .map((f) => normalize(join('functions', f)));
  const known = new Set(files);
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const source = await readFile(join(root, file), 'utf8');
    const targets = [...source.matchAll(/(?:from|import)\s*\(?\s*['"](\.{1,2}\/[^'"]+)['"]/g)]
      .map((m) => normalize(join(dirname(file), m[1] as string)))
      .filter((t) => known.has(t));
    graph.set(file, targets);
  }
  return graph;
}

/** One import circle of `graph` as a path (first file repeated at the end), if any. */
function findCircle(graph: Map<string, string[]>): string[] | undefined {
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const visit = (file: string): string[] | undefined => {
    state.set(file, 'open');
    stack.push(file);
    for (const next of graph.get(file) ?? []) {
      if (state.get(next) === 'open') return [...stack.slice(stack.indexOf(next)), next];
      if (!state.has(next)) {
        const circle = visit(next);
        if (circle) return circle;
      }
    }
    stack.pop();
    state.set(file, 'done');
    return undefined;
  };
  for (const file of graph.keys()) {
    if (!state.has(file)) {
      const circle = visit(file);
      if (circle) return circle;
    }
  }
  return undefined;
}

describe('import graph of functions/', () => {
  it('has no circle', async () => {
    expect(findCircle(await importGraph())).toBeUndefined();
  });

  it('finds a planted circle (the check can fail)', () => {
    const graph = new Map([
      ['a.ts', ['b.ts']],
      ['b.ts', ['c.ts']],
      ['c.ts', ['a.ts']],
    ]);
    expect(findCircle(graph)).toEqual(['a.ts', 'b.ts', 'c.ts', 'a.ts']);
  });

  it('reads the real layout', async () => {
    const graph = await importGraph();
    expect(graph.get(normalize('functions/api/operation.ts'))?.length).toBeGreaterThan(3);
  });
});
