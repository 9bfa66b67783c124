/**
 * `npm run smoke` against `npm start`: the real smoke script as a child process, against the real
 * local stack (API, stream consumer, AI worker) on a fresh DATA_DIR.
 */
import { spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalStack, startLocalStack } from '../support/local-stack.ts';

const ROOT = resolve(import.meta.dirname, '../..');
/** The demo keys the first start prints: name, then the key. */
const DEMO_KEY = (name: string) => new RegExp(`${name}\\s+(svc_live_[A-Za-z0-9_-]+)`);

let stack: LocalStack;

beforeAll(async () => {
  // Without the demo catalogue: its listings' AI work would queue before the smoke Lead's scoring.
  stack = await startLocalStack({ env: { DEMO_CATALOGUE: 'off' } });
}, 100_000);
afterAll(async () => stack?.stop(), 30_000);

function smoke(...args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolveRun, reject) => {
    const child = spawn(process.execPath, ['scripts/smoke.ts', ...args], {
      cwd: ROOT,
      env: stack.env,
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
      reject(new Error(`smoke timed out:\n${stdout}${stderr}`));
    }, 150_000);
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolveRun({ code, stdout, stderr });
    });
  });
}

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
