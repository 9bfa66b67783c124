/** `npm run soak -- …` as a child process, for the slow tests (test/slow/soak*.test.ts). */
import { spawn } from 'node:child_process';
import { resolve } from 'node:path';

const ROOT = resolve(import.meta.dirname, '../..');

interface SoakRun {
  code: number | null;
  output: string;
}

/** The soak script as `npm run soak -- …` runs it, with none of the test run's own settings. */
export function runSoak(args: string[], env: Record<string, string> = {}): Promise<SoakRun> {
  const childEnv: NodeJS.ProcessEnv = { ...process.env };
  for (const name of Object.keys(childEnv)) {
    if (/^(DYNAMODB_ENDPOINT|TABLE_NAME|S3_ENDPOINT|VITEST|SOAK_PLANT)/.test(name)) delete childEnv[name];
  }
  Object.assign(childEnv, env);
  return new Promise((resolveRun, reject) => {
    const child = spawn(process.execPath, ['scripts/soak/main.ts', ...args], {
      cwd: ROOT,
      env: childEnv,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString('utf8');
    });
    child.stderr.on('data', (chunk: Buffer) => {
      output += chunk.toString('utf8');
    });
    child.once('error', reject);
    child.once('exit', (code) => resolveRun({ code, output }));
  });
}
