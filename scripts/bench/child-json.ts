import { spawn } from 'node:child_process';
import { resolve } from 'node:path';

/**
 * Runs a bench script (next to this file) in a fresh Node process standing for a fresh container: the
 * input goes to its stdin as JSON, and its answer is the JSON it prints on stdout (its stderr is the
 * bench's). A child that exits non-zero fails with the start of what it printed.
 */
export function runJsonChild<T>(script: string, input: unknown): Promise<T> {
  const child = spawn(process.execPath, [resolve(import.meta.dirname, script)], {
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
      if (code !== 0) fail(new Error(`${script} exited ${code}: ${out.slice(0, 500)}`));
      else done(JSON.parse(out) as T);
    });
  });
}
