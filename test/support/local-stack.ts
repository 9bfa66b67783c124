import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { freePort } from '../../scripts/local/dynamo-local.ts';

const ROOT = resolve(import.meta.dirname, '../..');
const READY = /API ready on (http:\/\/127\.0\.0\.1:\d+)/;

export interface LocalStack {
  url: string;
  /** Everything the stack printed so far (its demo keys among it). */
  output: () => string;
  /** What a new user's shell would carry: none of the test run's settings, the stack's DATA_DIR. */
  env: NodeJS.ProcessEnv;
  /** Stops the stack (SIGINT, as Ctrl-C) and removes its data directory. */
  stop: () => Promise<void>;
}

/**
 * `npm start` as a child process on a fresh DATA_DIR and a free port: DynamoDB Local, the API, the
 * stream consumer and the AI worker, exactly as a user runs them. Resolves once it is ready.
 * `options.env` adds settings of the user's shell.
 */
export async function startLocalStack(options: { env?: Record<string, string> } = {}): Promise<LocalStack> {
  const dataDir = mkdtempSync(join(tmpdir(), 'lls-stack-'));
  const env: NodeJS.ProcessEnv = { ...process.env, DATA_DIR: dataDir };
  for (const name of Object.keys(env)) {
    if (/^(DYNAMODB_|TABLE_NAME|AUTH_CACHE|LOG_LEVEL|POWERTOOLS|AWS_|VITEST)/.test(name)) delete env[name];
  }
  // Settings a user would export before `npm start` (LOCAL_ALLOW_PRIVATE_URLS, RETRY_DELAY_SCALE…).
  Object.assign(env, options.env);
  const child = spawn(process.execPath, ['scripts/local/start.ts'], {
    cwd: ROOT,
    env: { ...env, PORT: String(await freePort()) },
    stdio: ['ignore', 'pipe', 'pipe'],
    // Its own process group, so that a stack too slow to stop is killed with its DynamoDB Local.
    detached: true,
  });
  let out = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    out += chunk.toString('utf8');
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    out += chunk.toString('utf8');
  });
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGINT');
      await exited(child, 20_000).catch(() => undefined);
    }
    // Whatever is left of it: a stack stopped while starting (before it handles SIGINT) dies at
    // once and leaves its DynamoDB Local behind.
    killStack(child);
    rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    const url = await new Promise<string>((resolveUrl, reject) => {
      // A loaded machine (2 cores shared by many runs) can take well over a minute to start.
      const timer = setTimeout(() => reject(new Error(`stack not ready within 180 s:\n${out}`)), 180_000);
      child.stdout?.on('data', () => {
        const match = READY.exec(out);
        if (match) {
          clearTimeout(timer);
          resolveUrl(match[1] as string);
        }
      });
      child.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`stack exited (${code}) before it was ready:\n${out}`));
      });
    });
    return { url, output: () => out, env, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

/**
 * Kills a stack's whole process group, what SIGINT did not stop: killing `npm start` alone left its
 * DynamoDB Local running, an orphan using CPU for the rest of the test run. The stack must have been
 * spawned `detached` (its own process group); nothing happens when the group is gone.
 */
export function killStack(child: ChildProcess): void {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, 'SIGKILL');
  } catch {
    // the group is gone already
  }
}

function exited(child: ChildProcess, timeoutMs: number): Promise<number | null> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((resolveCode, reject) => {
    const timer = setTimeout(() => reject(new Error(`pid ${child.pid} still running`)), timeoutMs);
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolveCode(code);
    });
  });
}
