/**
 * `npm run smoke` against `npm start`: the real smoke script as a child process, against the real
 * local stack (API, stream consumer, AI worker) on a fresh DATA_DIR.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CliRun, runScript } from '../support/cli.ts';
import { type LocalStack, startLocalStack } from '../support/local-stack.ts';

/** The demo keys the first start prints: name, then the key. */
const DEMO_KEY = (name: string) => new RegExp(`${name}\\s+(svc_live_[A-Za-z0-9_-]+)`);

let stack: LocalStack;

beforeAll(async () => {
  // Without the demo catalogue: its listings' AI work would queue before the smoke Lead's scoring.
  stack = await startLocalStack({ env: { DEMO_CATALOGUE: 'off' } });
}, 100_000);
afterAll(async () => stack?.stop(), 30_000);

/** `npm run smoke -- …` with the stack's environment. */
const smoke = (...args: string[]): Promise<CliRun> =>
  runScript('scripts/smoke.ts', args, { env: stack.env, timeoutMs: 150_000 });

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
