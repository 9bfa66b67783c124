import { globSync, readFileSync } from 'node:fs';
import { join, matchesGlob } from 'node:path';
import { describe, expect, it } from 'vitest';
import config, { GATE_PROJECTS, SLOW_PROJECTS } from '../../vitest.config.ts';
import { formatProjectTimes, projectTimes } from '../support/project-times-reporter.ts';

/**
 * A test file that no command runs is never run in CI, however green it is by hand (test/browser/ went
 * unrun that way). Every `*.test.ts` of the repository must run in exactly one of the two commands:
 * it belongs to exactly one vitest project, and that project is run by exactly one of `npm test` and
 * `npm run test:slow` (the `--project` flags of their package.json scripts). This check fails for a
 * file in no project, a project in no command, or either in two.
 */

const root = join(import.meta.dirname, '../..');

interface ProjectFiles {
  name: string;
  include: string[];
  exclude: string[];
}

type Scripts = Record<string, string>;

const configured: ProjectFiles[] = (config.test?.projects ?? []).map((entry) => {
  const test = (entry as { test?: { name?: string; include?: string[]; exclude?: string[] } }).test ?? {};
  return { name: test.name ?? '?', include: test.include ?? [], exclude: test.exclude ?? [] };
});

const packageScripts = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { scripts: Scripts })
  .scripts;

/** The projects that run `file` (a path relative to the repository root). */
function projectsOf(file: string, projects: readonly ProjectFiles[] = configured): string[] {
  return projects
    .filter(
      (p) => p.include.some((g) => matchesGlob(file, g)) && !p.exclude.some((g) => matchesGlob(file, g)),
    )
    .map((p) => p.name);
}

/** The projects a script's `vitest run` names with `--project` (none named: every project). */
function projectsRunBy(script: string, projects: readonly ProjectFiles[]): string[] {
  if (!/\bvitest run\b/.test(script)) return [];
  const named = [...script.matchAll(/--project[= ]([\w-]+)/g)].map((m) => m[1] as string);
  return named.length > 0 ? named : projects.map((p) => p.name);
}

/** The commands (`npm test`, `npm run test:slow`) that run `file`, given the projects and the scripts. */
function commandsOf(
  file: string,
  projects: readonly ProjectFiles[] = configured,
  scripts: Scripts = packageScripts,
): string[] {
  const commands: [string, string | undefined][] = [
    ['npm test', scripts.test],
    ['npm run test:slow', scripts['test:slow']],
  ];
  return projectsOf(file, projects).flatMap((project) =>
    commands
      .filter(([, script]) => script !== undefined && projectsRunBy(script, projects).includes(project))
      .map(([command]) => `${command} (${project})`),
  );
}

/** Every test file of the repository, wherever it is (dependencies and build output aside). */
function testFiles(): string[] {
  return globSync('**/*.test.ts', {
    cwd: root,
    exclude: (name) => ['node_modules', 'cdk.out', '.git', '.data', '.bench'].includes(String(name)),
  }).sort();
}

/** The files that do not run in exactly one command, with where they do run. */
function misplaced(
  projects: readonly ProjectFiles[] = configured,
  scripts: Scripts = packageScripts,
): string[] {
  return testFiles()
    .map((f) => [f, commandsOf(f, projects, scripts)] as const)
    .filter(([, commands]) => commands.length !== 1)
    .map(([f, commands]) => `${f}: ${commands.join(', ') || 'no command'}`);
}

describe('every test file runs in exactly one of npm test and npm run test:slow', () => {
  it('finds the test files of every kind, the slow and browser tests included', () => {
    const files = testFiles();
    expect(files.length).toBeGreaterThan(80);
    for (const folder of ['unit', 'int', 'e2e', 'infra', 'slow', 'browser', 'docs']) {
      expect(
        files.some((f) => f.startsWith(`test/${folder}/`)),
        folder,
      ).toBe(true);
    }
  });

  it('has the two commands run the two lists of projects, every project in one of them', () => {
    expect(projectsRunBy(packageScripts.test ?? '', configured)).toEqual([...GATE_PROJECTS]);
    expect(projectsRunBy(packageScripts['test:slow'] ?? '', configured)).toEqual([...SLOW_PROJECTS]);
    expect([...GATE_PROJECTS, ...SLOW_PROJECTS].sort()).toEqual(configured.map((p) => p.name).sort());
  });

  it('runs each file in exactly one command', () => {
    expect(misplaced()).toEqual([]);
  });

  it('fails for a file moved out of both commands, or into both', () => {
    // A file outside every project's folder runs nowhere.
    expect(commandsOf('test/stray/forgotten.test.ts')).toEqual([]);
    expect(commandsOf('functions/domain/forgotten.test.ts')).toEqual([]);
    // The slow folder taken out of the slow project: its files run in neither command.
    const slowDropped = configured.map((p) =>
      p.name === 'slow' ? { ...p, include: ['test/nowhere/**/*.test.ts'] } : p,
    );
    expect(misplaced(slowDropped)).toEqual(
      expect.arrayContaining(['test/slow/soak.test.ts: no command', 'test/slow/fuzz.test.ts: no command']),
    );
    // The browser project dropped from `npm run test:slow`'s flags: its files run nowhere.
    const withoutBrowser = {
      ...packageScripts,
      'test:slow': 'vitest run --project slow --project slow-permissions',
    };
    expect(misplaced(configured, withoutBrowser)).toEqual(
      expect.arrayContaining([
        'test/browser/site.test.ts: no command',
        'test/browser/page-weight.test.ts: no command',
      ]),
    );
    // The gate's script running every project (no --project flags): the slow files run in both.
    const everything = { ...packageScripts, test: 'npm run typecheck && vitest run' };
    expect(misplaced(configured, everything)).toEqual(
      expect.arrayContaining([
        'test/slow/soak.test.ts: npm test (slow), npm run test:slow (slow)',
        'test/browser/site.test.ts: npm test (browser), npm run test:slow (browser)',
      ]),
    );
    // Where the known files run.
    expect(commandsOf('test/browser/site.test.ts')).toEqual(['npm run test:slow (browser)']);
    expect(commandsOf('test/infra/permissions.test.ts')).toEqual(['npm test (permissions)']);
    expect(commandsOf('test/slow/permissions.test.ts')).toEqual(['npm run test:slow (slow-permissions)']);
    expect(commandsOf('test/e2e/fuzz.test.ts')).toEqual(['npm test (e2e)']);
  });
});

describe('the time per project a run ends with', () => {
  it("adds up each project's files and spans its first start to its last end", () => {
    // Prepare: two unit files side by side, one e2e file after.
    const spans = [
      { project: 'unit', start: 0, end: 2_000, tests: 3 },
      { project: 'unit', start: 1_000, end: 4_000, tests: 2 },
      { project: 'e2e', start: 4_000, end: 10_000, tests: 7 },
    ];
    // Act
    const times = projectTimes(spans);
    // Assess
    expect(times).toEqual([
      { project: 'unit', files: 2, tests: 5, wallSeconds: 4, fileSeconds: 5 },
      { project: 'e2e', files: 1, tests: 7, wallSeconds: 6, fileSeconds: 6 },
    ]);
    expect(formatProjectTimes(times).split('\n').slice(1)).toEqual([
      'project  files  tests  wall s  file s',
      'unit         2      5     4.0     5.0',
      'e2e          1      7     6.0     6.0',
    ]);
  });
});
