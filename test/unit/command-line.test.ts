/**
 * Every command a person runs answers `--help` with its usage (exit 0, stdout), and a bad command
 * line with one line naming what is wrong, then the usage (exit 2, stderr): never a stack trace.
 */
import { spawnSync } from 'node:child_process';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');

const COMMANDS = {
  soak: 'scripts/soak/main.ts',
  bench: 'scripts/bench/main.ts',
  preflight: 'scripts/preflight.ts',
  smoke: 'scripts/smoke.ts',
  openapi: 'scripts/openapi.ts',
} as const;

function run(script: string, args: string[]) {
  const result = spawnSync(process.execPath, [script, ...args], {
    cwd: ROOT,
    encoding: 'utf8',
    timeout: 60_000,
    env: { ...process.env, LOG_LEVEL: 'SILENT' },
  });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

describe.each(Object.entries(COMMANDS))('npm run %s', (name, script) => {
  it('--help prints the usage with every option on stdout and exits 0', () => {
    // Act
    const { code, stdout, stderr } = run(script, ['--help']);
    // Assess
    expect(code, stderr).toBe(0);
    expect(stdout).toMatch(new RegExp(`^usage: npm run ${name}`));
    expect(stdout).toContain('options:');
    expect(stdout).toContain('--help');
    expect(stderr).not.toMatch(/at .*\(.*:\d+:\d+\)|node:internal/);
  });

  it('an unknown option is one line naming it, then the usage, exit 2, no stack trace', () => {
    // Act
    const { code, stdout, stderr } = run(script, ['--no-such-option']);
    // Assess
    expect(code).toBe(2);
    expect(stderr.split('\n')[0]).toBe("error: Unknown option '--no-such-option'");
    expect(stderr).toContain(`usage: npm run ${name}`);
    expect(stderr).not.toMatch(/at .*\(.*:\d+:\d+\)|node:internal/);
    expect(stdout).toBe('');
  });
});

describe('npm run admin', () => {
  const admin = 'scripts/admin/main.ts';

  it('an unknown command is one line, exit 1, before any connection', () => {
    // Act
    const { code, stdout, stderr } = run(admin, ['tenant', 'frobnicate']);
    // Assess
    expect(code).toBe(1);
    expect(stderr).toBe('error: unknown command "tenant frobnicate"; run with --help for the list\n');
    expect(stdout).toBe('');
  });

  it('--help prints every command with its flags on stdout and exits 0, without a stack to connect to', () => {
    // Act
    const { code, stdout, stderr } = run(admin, ['--help']);
    const ofOne = run(admin, ['tenant', 'show', '--help']);
    // Assess
    expect(code, stderr).toBe(0);
    expect(stdout).toMatch(/^Usage: npm run -s admin -- <command>/);
    expect(stdout).toContain('  tenant show --tenant SLUG');
    expect(stdout).toContain('  listing import --tenant SLUG --file FEED.json');
    expect(ofOne.code, ofOne.stderr).toBe(0);
    expect(ofOne.stdout).toBe(stdout);
  });

  it.each([
    [['--no-such-option'], "error: Unknown option '--no-such-option'"],
    [
      ['tenant', 'show', '--tenant', 'demo', '--no-such-option', 'x'],
      `error: Unknown option '--no-such-option' for "tenant show"`,
    ],
  ])('%j is one line naming the option, then the usage, exit 2, before any connection', (args, line) => {
    // Act: DATA_DIR holds nothing, so a command that got as far as connecting would say so instead
    const { code, stdout, stderr } = run(admin, args);
    // Assess
    expect(code).toBe(2);
    expect(stderr.split('\n')[0]).toBe(line);
    expect(stderr).toContain('Usage: npm run -s admin -- <command>');
    expect(stderr).not.toMatch(/at .*\(.*:\d+:\d+\)|node:internal/);
    expect(stdout).toBe('');
  });
});
