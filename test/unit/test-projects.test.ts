import { globSync } from 'node:fs';
import { join, matchesGlob } from 'node:path';
import { describe, expect, it } from 'vitest';
import config from '../../vitest.config.ts';

/**
 * A test file that no vitest project includes never runs in `npm test` or CI, however green it is by
 * hand (test/browser/ went unrun that way). Every `*.test.ts` of the repository must belong to exactly
 * one project; this check fails for a file that belongs to none (or to two, which would run it twice).
 */

const root = join(import.meta.dirname, '../..');

interface ProjectFiles {
  name: string;
  include: string[];
  exclude: string[];
}

const projects: ProjectFiles[] = (config.test?.projects ?? []).map((entry) => {
  const test = (entry as { test?: { name?: string; include?: string[]; exclude?: string[] } }).test ?? {};
  return { name: test.name ?? '?', include: test.include ?? [], exclude: test.exclude ?? [] };
});

/** The projects that run `file` (a path relative to the repository root). */
function projectsOf(file: string): string[] {
  return projects
    .filter(
      (p) => p.include.some((g) => matchesGlob(file, g)) && !p.exclude.some((g) => matchesGlob(file, g)),
    )
    .map((p) => p.name);
}

/** Every test file of the repository, wherever it is (dependencies and build output aside). */
function testFiles(): string[] {
  return globSync('**/*.test.ts', {
    cwd: root,
    exclude: (name) => ['node_modules', 'cdk.out', '.git', '.data', '.bench'].includes(String(name)),
  }).sort();
}

describe('every test file belongs to a vitest project', () => {
  it('finds the test files of every kind, the browser tests included', () => {
    const files = testFiles();
    expect(files.length).toBeGreaterThan(80);
    for (const folder of ['unit', 'int', 'e2e', 'infra', 'browser', 'docs']) {
      expect(
        files.some((f) => f.startsWith(`test/${folder}/`)),
        folder,
      ).toBe(true);
    }
  });

  it('runs each file in exactly one project', () => {
    const orphans = testFiles().filter((f) => projectsOf(f).length !== 1);
    expect(orphans.map((f) => `${f}: ${projectsOf(f).join(', ') || 'no project'}`)).toEqual([]);
  });

  it('reports a file planted outside every project', () => {
    expect(projectsOf('test/stray/forgotten.test.ts')).toEqual([]);
    expect(projectsOf('functions/domain/forgotten.test.ts')).toEqual([]);
    expect(projectsOf('test/browser/site.test.ts')).toEqual(['browser']);
    expect(projectsOf('test/infra/permissions.test.ts')).toEqual(['permissions']);
  });
});
