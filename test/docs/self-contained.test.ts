/**
 * The repository speaks for itself: a clone holds no tracker and none of the documents the project
 * was planned from, so a comment, string or page that cites a tracker number ("issue 25"), a work
 * item, a numbered section of an outside document (the section sign) or a path outside the
 * repository (`../shared`) sends its reader nowhere. Such a reference states its rule in words or
 * points at the repository's own guides (docs/*.md) instead. The tests are read too (their headers
 * and names say what a test holds); only this file is skipped, since it spells the patterns out.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

/** What the repository's readers see: the code, the infrastructure, the scripts, the guides and the tests. */
const SCANNED = ['functions', 'lib', 'scripts', 'README.md', 'docs', 'test'];

/** This file: its planted example and its pattern spell out every kind of reference it looks for. */
const SELF = 'test/docs/self-contained.test.ts';

/** A tracker number, a work item, a path outside the repository, a numbered section elsewhere. */
const OUTSIDE_REFERENCE = /[Ii]ssue [0-9]+|work item [A-Z]|\.\.\/shared|§/;

interface TextFile {
  /** Relative to the repository root, `/`-separated. */
  readonly path: string;
  readonly text: string;
}

/**
 * Every text file under the given roots (a root may be a file), skipping node_modules, binaries and
 * hidden folders: those hold a run's scratch output (test/.typed-client-*, ignored by git), which a
 * clone does not have and a test running beside this one may remove mid-walk.
 */
function readTextFiles(roots: readonly string[]): TextFile[] {
  const files: TextFile[] = [];
  const visit = (path: string, isDirectory: boolean): void => {
    if (isDirectory) {
      for (const entry of readdirSync(path, { withFileTypes: true })) {
        if (entry.name === 'node_modules' || entry.name.startsWith('.')) continue;
        visit(join(path, entry.name).split('\\').join('/'), entry.isDirectory());
      }
      return;
    }
    const bytes = readFileSync(path);
    // A NUL byte marks a binary file (an image, an archive): nothing a reader reads as text.
    if (bytes.includes(0)) return;
    files.push({ path, text: bytes.toString('utf8') });
  };
  for (const root of roots) visit(root, statSync(root).isDirectory());
  return files;
}

/** `file:line: the line` for every line that cites something outside the repository. */
function outsideReferences(files: readonly TextFile[]): string[] {
  return files.flatMap(({ path, text }) =>
    text.split('\n').flatMap((line, index) => {
      const match = OUTSIDE_REFERENCE.exec(line);
      return match
        ? [`${path}:${index + 1}: …${line.slice(Math.max(0, match.index - 40), match.index + 40)}…`]
        : [];
    }),
  );
}

describe('the repository speaks for itself', () => {
  it('finds each kind of outside reference when one is planted', () => {
    // Arrange: one planted line per pattern, and a clean line between them
    const planted: TextFile = {
      path: 'functions/planted.ts',
      text: [
        '// slower before the change (issue 14)',
        '// Tiers, interface §2.2',
        '// the budgets of work item C',
        "import { spec } from '../shared/spec';",
        '// Issue 7 said so',
        '// a clean line: the tissue of 3 issues, an item of work',
      ].join('\n'),
    };
    // Act
    const found = outsideReferences([planted]);
    // Assess: lines 1 to 5, each once; the clean line 6 is not listed
    expect(found.map((hit) => hit.split(': ')[0])).toEqual([
      'functions/planted.ts:1',
      'functions/planted.ts:2',
      'functions/planted.ts:3',
      'functions/planted.ts:4',
      'functions/planted.ts:5',
    ]);
  });

  it('no file of functions/, lib/, scripts/, README.md, docs/ or test/ cites a tracker, an outside section or path', () => {
    // Arrange
    const files = readTextFiles(SCANNED);
    // Assess: the walk reached every root (a renamed folder would otherwise pass silently), and this
    // file, the one it skips, is where SELF says (moved, it would be read and list its own examples)
    for (const root of SCANNED)
      expect(files.some((f) => f.path === root || f.path.startsWith(`${root}/`))).toBe(true);
    expect(files.some((f) => f.path === 'docs/openapi.json')).toBe(true);
    expect(files.some((f) => f.path === SELF)).toBe(true);
    // Act
    const found = outsideReferences(files.filter((f) => f.path !== SELF));
    // Assess: state the rule in words or point at docs/*.md (a generated file: run npm run openapi)
    expect(found).toEqual([]);
  });
});
