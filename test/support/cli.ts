import { spawn } from 'node:child_process';
import { resolve } from 'node:path';

const ROOT = resolve(import.meta.dirname, '../..');

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface ScriptOptions {
  env: NodeJS.ProcessEnv;
  /** The working directory, as the user's shell has it. @default the repository */
  cwd?: string;
  /**
   * A process of its own: seconds when alone, tens of seconds beside others on a loaded machine.
   * @default 60_000
   */
  timeoutMs?: number;
}

/**
 * Runs a script of the repository (`scripts/…`) as a child process, as its npm script would, and
 * collects its exit code and output. Past `timeoutMs` the process is killed and the run rejects,
 * with what it printed so far.
 */
export function runScript(script: string, args: readonly string[], options: ScriptOptions): Promise<CliRun> {
  return new Promise((resolveRun, reject) => {
    const child = spawn(process.execPath, [resolve(ROOT, script), ...args], {
      cwd: options.cwd ?? ROOT,
      env: options.env,
      stdio: 'pipe',
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString('utf8');
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
    });
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${script} ${args.join(' ')} timed out:\n${stdout}${stderr}`));
    }, options.timeoutMs ?? 60_000);
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolveRun({ code, stdout, stderr });
    });
  });
}

/** Runs the real admin CLI as a child process, as `npm run -s admin -- ...` would, with `env`. */
export function runAdminCli(env: NodeJS.ProcessEnv, ...args: string[]): Promise<CliRun> {
  return runScript('scripts/admin/main.ts', args, { env });
}
