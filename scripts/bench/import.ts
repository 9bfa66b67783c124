/**
 * The import section of the bench (issue 25): a bulk `listing import` of N generated listings under
 * throttling, its resume, and how soon the catalogue snapshot covers the last write. The run is
 * import-child.ts, in a fresh process (its faults, stream consumer and rebuilder stay its own); the
 * feed, the figures and the table are import-feed.ts.
 */
import { spawn } from 'node:child_process';
import { resolve } from 'node:path';
import type { ImportChildInput } from './import-child.ts';
import type { ImportSection } from './import-feed.ts';

/** Runs the section's child process on `input`; its answer is the section. */
export function measureImport(input: ImportChildInput): Promise<ImportSection> {
  const child = spawn(process.execPath, [resolve(import.meta.dirname, 'import-child.ts')], {
    env: process.env,
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  child.stdin.end(JSON.stringify(input));
  let out = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    out += chunk;
  });
  return new Promise((done, fail) => {
    child.on('error', fail);
    child.on('close', (code) => {
      if (code !== 0) fail(new Error(`import-child exited ${code}: ${out.slice(0, 500)}`));
      else done(JSON.parse(out) as ImportSection);
    });
  });
}
