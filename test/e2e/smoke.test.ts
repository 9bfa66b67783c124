/**
 * `npm start` as a user meets it, one local stack (API, stream consumer, AI worker) on a fresh
 * DATA_DIR for the whole file:
 * - `npm run smoke` against it: the real smoke script as a child process;
 * - the admin CLI beside it: the README's `npm run -s admin -- email list --tenant demo`, typed in a
 *   shell that has no DATA_DIR. The CLI must act on the running stack's data, or refuse and say which
 *   DATA_DIR it looked at and where the stack runs: never answer from another folder's data (or start
 *   a DynamoDB Local of its own on a folder that holds none). Both are child processes, as a user
 *   runs them.
 */
import { existsSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CliRun, runScript } from '../support/cli.ts';
import { type LocalStack, startLocalStack } from '../support/local-stack.ts';

/** The demo keys the first start prints: name, then the key. */
const DEMO_KEY = (name: string) => new RegExp(`${name}\\s+(svc_live_[A-Za-z0-9_-]+)`);

let stack: LocalStack;
/** A working directory whose `.data` (the default DATA_DIR) holds nothing. */
let elsewhere: string;

beforeAll(async () => {
  // Without the demo catalogue: its listings' AI work would queue before the smoke Lead's scoring,
  // and nothing else here needs them.
  stack = await startLocalStack({ env: { DEMO_CATALOGUE: 'off' } });
  elsewhere = realpathSync(mkdtempSync(join(tmpdir(), 'lls-shell-')));
}, 240_000); // the whole stack's first start, on a loaded machine
afterAll(async () => {
  await stack?.stop();
  if (elsewhere) rmSync(elsewhere, { recursive: true, force: true });
}, 60_000);

/** `npm run smoke -- …` with the stack's environment. */
const smoke = (...args: string[]): Promise<CliRun> =>
  runScript('scripts/smoke.ts', args, { env: stack.env, timeoutMs: 150_000 });

/** `npm run -s admin -- …` from `cwd`, with `env`. */
const admin = (cwd: string, env: NodeJS.ProcessEnv, ...args: string[]): Promise<CliRun> =>
  runScript('scripts/admin/main.ts', args, { cwd, env, timeoutMs: 90_000 });

const demoKey = (name: string) => {
  const key = DEMO_KEY(name).exec(stack.output())?.[1];
  expect(key, stack.output()).toBeDefined();
  return key as string;
};

describe('npm run smoke', () => {
  it('passes every step against npm start with a full key, and exits 0', async () => {
    // Act
    const run = await smoke('--url', stack.url, '--key', demoKey('demo-full-access'));
    // Assess
    expect(run.code, run.stdout + run.stderr).toBe(0);
    const lines = run.stdout.trim().split('\n').slice(1, -1);
    expect(lines.length).toBeGreaterThanOrEqual(9);
    for (const line of lines) expect(line).toMatch(/^PASS {2}.+\(\d+ ms\)$/);
    for (const step of [
      'listing write',
      'ingest',
      'scoring',
      'criteria write',
      'lead properties',
      'matches',
    ]) {
      expect(run.stdout).toContain(`PASS  ${step}`);
    }
    expect(run.stdout.trim().endsWith('All steps passed.')).toBe(true);
  }, 160_000);

  it('fails with a clear line per step and a non-zero exit for an unknown key', async () => {
    // Act
    const run = await smoke('--url', stack.url, '--key', 'svc_live_thisKeyDoesNotExist0000000000000000');
    // Assess
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(/FAIL {2}places read .*answered 401 .*unknown, expired or revoked/);
    expect(run.stdout).toMatch(/SKIP {2}listing write/);
    expect(run.stdout).not.toMatch(/^PASS/m);
    expect(run.stdout.trim().endsWith('Some steps failed.')).toBe(true);
  }, 60_000);

  it('names the missing scope for a read-only key, and exits non-zero', async () => {
    // Act
    const run = await smoke('--url', stack.url, '--key', demoKey('demo-read-only'));
    // Assess
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(/FAIL {2}listing write .*403 .*lacks a scope.*properties:write/);
  }, 60_000);

  it('refuses to run without --key (usage, exit 2)', async () => {
    // Act
    const run = await smoke('--url', stack.url);
    // Assess
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('--key is required');
  });
});

describe('the admin CLI with npm start on a custom DATA_DIR', () => {
  it('with the same DATA_DIR: acts on the running stack (the demo outbox)', async () => {
    const run = await admin(elsewhere, stack.env, 'email', 'list', '--tenant', 'demo');
    expect(run.code, run.stderr).toBe(0);
    expect(Array.isArray(JSON.parse(run.stdout))).toBe(true);
  }, 120_000);

  it('without DATA_DIR: refuses, naming the DATA_DIR it looked at and the one the stack runs on', async () => {
    // Prepare: the user's shell, which never exported the stack's DATA_DIR.
    const { DATA_DIR, ...shell } = stack.env;
    const lookedAt = join(elsewhere, '.data');

    // Act
    const run = await admin(elsewhere, shell, 'email', 'list', '--tenant', 'demo');

    // Assess
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr).not.toContain('No tenant with slug');
    expect(run.stderr).toContain(lookedAt);
    expect(run.stderr).toContain(realpathSync(DATA_DIR as string));
    expect(run.stderr.trim().split('\n')).toHaveLength(1);
    // Nothing started or made on the folder it looked at.
    expect(existsSync(lookedAt)).toBe(false);
  }, 120_000);
});
