/**
 * The soak's moving parts as child processes (scripts/soak/part.ts): started, waited for, killed
 * with SIGKILL (`kill -9`: no handler runs, as when Lambda loses a container) and started again.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { join, resolve } from 'node:path';
import { PART_READY, type SoakPart } from './parts.ts';

const ROOT = resolve(import.meta.dirname, '../..');
const PART_ENTRY = resolve(import.meta.dirname, 'part.ts');
const START_TIMEOUT_MS = 120_000;

export interface RunningPart {
  part: SoakPart;
  /** The API's URL (the api part only). */
  url?: string;
  /** `kill -9`, then a fresh process; resolves once it is ready again. */
  killAndRestart(): Promise<void>;
  stop(): Promise<void>;
  /** Lines the part wrote to stderr (its errors), last ones kept. */
  errors: string[];
}

/** Starts `part` with `env`; every start gets SOAK_START=<n> (its own fault draws). */
export async function startPart(
  part: SoakPart,
  env: NodeJS.ProcessEnv,
  log: (line: string) => void,
): Promise<RunningPart> {
  let child: ChildProcess;
  let starts = 0;
  const errors: string[] = [];
  // Every start's stderr, whole, beside the data (kept with --keep): the audit names what was lost,
  // this shows why (a handler that kept failing, a retry ladder that stalled).
  const stderrLog = env.DATA_DIR
    ? createWriteStream(join(env.DATA_DIR, `${part}.stderr.log`), { flags: 'a' })
    : undefined;
  const launch = () =>
    new Promise<string | undefined>((resolveReady, reject) => {
      starts += 1;
      child = spawn(process.execPath, [PART_ENTRY, part], {
        cwd: ROOT,
        env: { ...env, SOAK_START: String(starts) },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let out = '';
      const timer = setTimeout(
        () => reject(new Error(`${part} not ready in ${START_TIMEOUT_MS / 1000} s`)),
        START_TIMEOUT_MS,
      );
      child.stdout?.on('data', (chunk: Buffer) => {
        out += chunk.toString('utf8');
        const line = out.split('\n').find((l) => l.startsWith(PART_READY));
        if (line !== undefined) {
          clearTimeout(timer);
          resolveReady(line.slice(PART_READY.length).trim() || undefined);
        }
      });
      child.stderr?.on('data', (chunk: Buffer) => {
        stderrLog?.write(chunk);
        for (const line of chunk.toString('utf8').split('\n')) {
          if (!line.trim()) continue;
          errors.push(line);
          if (errors.length > 200) errors.shift();
          if (line.startsWith('PLANTED') || /DISCARDED/.test(line)) log(`  [${part}] ${line}`);
        }
      });
      child.once('exit', (code, signal) => {
        clearTimeout(timer);
        if (signal !== 'SIGKILL' && signal !== 'SIGTERM') {
          log(`  [${part}] exited by itself (${code ?? signal}): ${errors.slice(-3).join(' | ')}`);
          reject(
            new Error(
              `${part} exited (${code ?? signal}) before it was ready:\n${errors.slice(-20).join('\n')}`,
            ),
          );
        }
      });
    });
  const stopped = () =>
    new Promise<void>((resolveExit) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolveExit();
      child.once('exit', () => resolveExit());
    });
  const url = await launch();
  return {
    part,
    ...(url ? { url } : {}),
    errors,
    async killAndRestart() {
      const exited = stopped();
      child.kill('SIGKILL');
      await exited;
      await launch();
    },
    async stop() {
      const exited = stopped();
      child.kill('SIGKILL');
      await exited;
    },
  };
}
