import type { Reporter, TestModule } from 'vitest/node';

/** One project's figures of a run. */
export interface ProjectTime {
  project: string;
  files: number;
  tests: number;
  /** From the first of its files starting to the last ending, files of other projects running beside. */
  wallSeconds: number;
  /** Its files' own times added up (set-up, import and tests): what it costs the machine. */
  fileSeconds: number;
}

/** When one file ran, in ms since the epoch, and how many tests it held. */
interface FileSpan {
  project: string;
  start: number;
  end: number;
  tests: number;
}

/** The projects' figures from the spans of their files, in the order the projects first appear. */
export function projectTimes(spans: readonly FileSpan[]): ProjectTime[] {
  const byProject = new Map<string, FileSpan[]>();
  for (const span of spans) byProject.set(span.project, [...(byProject.get(span.project) ?? []), span]);
  return [...byProject].map(([project, files]) => ({
    project,
    files: files.length,
    tests: files.reduce((n, f) => n + f.tests, 0),
    wallSeconds: (Math.max(...files.map((f) => f.end)) - Math.min(...files.map((f) => f.start))) / 1000,
    fileSeconds: files.reduce((n, f) => n + (f.end - f.start), 0) / 1000,
  }));
}

/** The table the reporter prints. */
export function formatProjectTimes(times: readonly ProjectTime[]): string {
  const rows = times.map((t) => [
    t.project,
    String(t.files),
    String(t.tests),
    t.wallSeconds.toFixed(1),
    t.fileSeconds.toFixed(1),
  ]);
  const header = ['project', 'files', 'tests', 'wall s', 'file s'];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]) =>
    cells.map((c, i) => (i === 0 ? c.padEnd(widths[i] ?? 0) : c.padStart(widths[i] ?? 0))).join('  ');
  return [
    'Time per project (wall: first file started to last file ended, beside other projects; file: the files added up)',
    line(header),
    ...rows.map(line),
  ].join('\n');
}

/**
 * Ends a run with the time each project took (docs/testing.md keeps a table of the same figures),
 * so that a project growing slower shows in every run's output rather than in a slower gate.
 */
export default class ProjectTimesReporter implements Reporter {
  private readonly spans: FileSpan[] = [];

  onTestModuleEnd(module: TestModule): void {
    const d = module.diagnostic();
    const ownMs =
      d.environmentSetupDuration + d.prepareDuration + d.setupDuration + d.collectDuration + d.duration;
    const end = Date.now();
    this.spans.push({
      project: module.project.name,
      start: end - ownMs,
      end,
      tests: [...module.children.allTests()].length,
    });
  }

  onTestRunEnd(): void {
    if (this.spans.length === 0) return;
    console.log(`\n${formatProjectTimes(projectTimes(this.spans))}\n`);
  }
}
