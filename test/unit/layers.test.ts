import { execFile } from 'node:child_process';
import { copyFile, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, normalize, sep } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * The layers of functions/ (docs/architecture.md, Layers) are guarded by Biome's noRestrictedImports overrides in
 * biome.json, and so is the line between the tests and everything else: scripts/, lib/ and bin/ never
 * import test/ (what a tool and a test both need lives in scripts/local). These tests plant imports in
 * a scratch copy of the layout, lint it with the project's own biome.json, and check that every
 * upward import is refused and every permitted one passes; and they walk the real import graph for
 * circles and for an import of test/.
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
    ['functions/contract/thing.ts', '../pipeline/answers.ts'],
    ['functions/services/thing.ts', '../pipeline/request-state.ts'],
    ['functions/services/thing.ts', '../http/leads/get-lead.ts'],
    ['functions/streams/thing.ts', '../pipeline/operation.ts'],
    ['functions/workers/thing.ts', '../http/leads/get-lead.ts'],
    ['functions/pipeline/thing.ts', '../http/leads/get-lead.ts'],
    ['scripts/soak/thing.ts', '../../test/support/dynamodb-faults-setup.ts'],
    ['scripts/bench/thing.ts', '../../test/support/factories.ts'],
    ['scripts/thing.ts', '../test/unit/fixtures/thing.ts'],
    ['lib/constructs/thing.ts', '../../test/support/iam-policies.ts'],
    ['bin/thing.ts', '../test/infra/deploy-context.ts'],
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
    ['functions/pipeline/thing.ts', '../services/caller.ts'],
    ['functions/http/leads/thing.ts', '../../pipeline/operation.ts'],
    ['scripts/soak/thing.ts', '../local/dynamodb-faults.ts'],
    ['scripts/bench/thing.ts', '../../functions/data/client.ts'],
    ['test/int/thing.ts', '../../scripts/local/dynamodb-faults.ts'],
  ];
  it.each(permitted)('%s may import %s', async (path, specifier) => {
    expect(await restrictedMessages(path, specifier)).toEqual([]);
  });
});

/** The .ts files under `folder`, as paths from the repository root. */
async function tsFiles(folder: string): Promise<string[]> {
  return (await readdir(join(root, folder), { recursive: true }))
    .filter((f) => f.endsWith('.ts'))
    .map((f) => normalize(join(folder, f)));
}

/** The relative modules `source` (the file `file`) imports, static and dynamic, from the repository root. */
function importsOf(file: string, source: string): string[] {
  return [...source.matchAll(/(?:from|import)\s*\(?\s*['"](\.{1,2}\/[^'"]+)['"]/g)].map((m) =>
    normalize(join(dirname(file), m[1] as string)),
  );
}

/** Every .ts file under functions/ and the relative modules it imports (static and dynamic). */
async function importGraph(): Promise<Map<string, string[]>> {
  const files = await tsFiles('functions');
  const known = new Set(files);
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const source = await readFile(join(root, file), 'utf8');
    graph.set(
      file,
      importsOf(file, source).filter((t) => known.has(t)),
    );
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
    expect(graph.get(normalize('functions/pipeline/operation.ts'))?.length).toBeGreaterThan(3);
  });
});

describe('scripts/, lib/ and bin/ never import test/', () => {
  /** `file → module` for each import of test/ in `sources` (path → text). */
  const testImports = (sources: [string, string][]) =>
    sources.flatMap(([file, source]) =>
      importsOf(file, source)
        .filter((target) => target.startsWith(`test${sep}`))
        .map((target) => `${file} → ${target}`),
    );

  it('holds in the real tree', async () => {
    const files = [...(await tsFiles('scripts')), ...(await tsFiles('lib')), ...(await tsFiles('bin'))];
    const sources: [string, string][] = await Promise.all(
      files.map(async (file): Promise<[string, string]> => [file, await readFile(join(root, file), 'utf8')]),
    );
    expect(files.length).toBeGreaterThan(50);
    expect(testImports(sources)).toEqual([]);
  });

  it('finds a planted import of test/, static or dynamic, over several lines (the check can fail)', () => {
    const planted: [string, string][] = [
      [normalize('scripts/soak/part.ts'), "import { x } from '../../test/support/factories.ts';"],
      [
        normalize('scripts/bench/child.ts'),
        "const m = await import(\n  '../../test/support/eventually.ts'\n);",
      ],
      [normalize('scripts/local/fine.ts'), "import { y } from './dynamodb-faults.ts';"],
    ];
    expect(testImports(planted)).toEqual([
      `${normalize('scripts/soak/part.ts')} → ${normalize('test/support/factories.ts')}`,
      `${normalize('scripts/bench/child.ts')} → ${normalize('test/support/eventually.ts')}`,
    ]);
  });
});

/**
 * One name per layer: the wire and its contract (functions/http, functions/contract) say "property",
 * as the API's paths and fields do; the model below them (services, domain, data, streams, workers,
 * kernel) says "listing" (docs/architecture.md, Glossary). A file named the other way round is in the
 * wrong layer or misnamed.
 */
describe('property on the wire, listing below it', () => {
  const WIRE = ['functions/http', 'functions/contract'];
  const MODEL = [
    'functions/services',
    'functions/domain',
    'functions/data',
    'functions/streams',
    'functions/workers',
    'functions/kernel',
  ];
  const misnamed = (files: string[]) =>
    files.filter((file) => {
      const name = file.split(sep).pop() ?? '';
      const wire = WIRE.some((dir) => file.startsWith(normalize(dir) + sep));
      return wire ? /listing/i.test(name) : /propert/i.test(name);
    });

  it('holds in the real tree', async () => {
    const files = [...(await Promise.all([...WIRE, ...MODEL].map((dir) => tsFiles(dir)))).flat()];
    expect(files.length).toBeGreaterThan(100);
    expect(misnamed(files)).toEqual([]);
  });

  it('finds a planted misnamed file (the check can fail)', () => {
    expect(
      misnamed([
        normalize('functions/http/site/listing-reads.ts'),
        normalize('functions/services/property-images.ts'),
        normalize('functions/http/properties/create-property.ts'),
        normalize('functions/services/listings.ts'),
      ]),
    ).toEqual([
      normalize('functions/http/site/listing-reads.ts'),
      normalize('functions/services/property-images.ts'),
    ]);
  });
});
