/**
 * The admin CLI and the DATA_DIR of the running stack: `npm start` on a DATA_DIR of its own, then the
 * README's `npm run -s admin -- email list --tenant demo`, typed in a shell that has no DATA_DIR.
 * The CLI must act on the running stack's data, or refuse and say which DATA_DIR it looked at and
 * where the stack runs: never answer from another folder's data (or start a DynamoDB Local of its
 * own on a folder that holds none). Both are child processes, as a user runs them.
 */
import { existsSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CliRun, runScript } from '../support/cli.ts';
import { type LocalStack, startLocalStack } from '../support/local-stack.ts';

let stack: LocalStack;
/** A working directory whose `.data` (the default DATA_DIR) holds nothing. */
let elsewhere: string;

/** `npm run -s admin -- …` from `cwd`, with `env`. */
const admin = (cwd: string, env: NodeJS.ProcessEnv, ...args: string[]): Promise<CliRun> =>
  runScript('scripts/admin/main.ts', args, { cwd, env, timeoutMs: 90_000 });

beforeAll(async () => {
  // The demo Tenant and keys, without the sample listings: nothing here needs them.
  stack = await startLocalStack({ env: { DEMO_CATALOGUE: 'off' } });
  elsewhere = realpathSync(mkdtempSync(join(tmpdir(), 'lls-shell-')));
}, 240_000);
afterAll(async () => {
  await stack?.stop();
  if (elsewhere) rmSync(elsewhere, { recursive: true, force: true });
}, 60_000);

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
