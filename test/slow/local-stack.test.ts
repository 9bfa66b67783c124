/**
 * The `npm start` promise, black-box: the real start script and the real admin CLI as child
 * processes on a fresh DATA_DIR, talking to each other only through the data directory and HTTP.
 */

import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { freePort } from '../../scripts/local/dynamo-local.ts';
import { runAdminCli } from '../support/cli.ts';
import { checkResponse } from '../support/contract.ts';
import { killStack } from '../support/local-stack.ts';

// Each admin command is a process of its own (a few seconds each on a loaded machine), and a test
// runs several in a row: more than the default 30 s.
vi.setConfig({ testTimeout: 90_000 });

const ROOT = resolve(import.meta.dirname, '../..');
const READY = /API ready on (http:\/\/127\.0\.0\.1:\d+)/;
const KEY = /svc_live_[A-Za-z0-9_-]+/;

let dataDir: string;
/** What a new user's shell would carry: none of the test run's DynamoDB settings. */
let env: NodeJS.ProcessEnv;
const stacks: ChildProcess[] = [];

interface RunningStack {
  child: ChildProcess;
  url: string;
  output: () => string;
}

/** Spawns `node scripts/local/start.ts` and resolves once it prints its ready line. */
async function startStack(port: number): Promise<RunningStack> {
  const child = spawn(process.execPath, ['scripts/local/start.ts'], {
    cwd: ROOT,
    env: { ...env, PORT: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true, // killStack ends its DynamoDB Local with it
  });
  stacks.push(child);
  let out = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    out += chunk.toString('utf8');
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    out += chunk.toString('utf8');
  });
  const url = await new Promise<string>((resolveUrl, reject) => {
    const timer = setTimeout(() => reject(new Error(`stack not ready within 60 s:\n${out}`)), 60_000);
    const check = () => {
      const match = READY.exec(out);
      if (match) {
        clearTimeout(timer);
        resolveUrl(match[1] as string);
      }
    };
    child.stdout?.on('data', check);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`stack exited (${code}) before it was ready:\n${out}`));
    });
  });
  return { child, url, output: () => out };
}

/** Resolves with the exit code once the process has exited (at once if it already has). */
function exited(child: ChildProcess, timeoutMs: number): Promise<number | null> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((resolveCode, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`pid ${child.pid} still running after ${timeoutMs} ms`)),
      timeoutMs,
    );
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolveCode(code);
    });
  });
}

/** The admin CLI as a child process on the stack's DATA_DIR, exactly as `npm run -s admin -- ...`. */
const admin = (...args: string[]) => runAdminCli(env, ...args);

/** An admin command that must succeed: its stdout is exactly one JSON document. */
async function adminJson(...args: string[]): Promise<Record<string, unknown>> {
  const run = await admin(...args);
  expect(run.code, run.stderr).toBe(0);
  expect(run.stdout.trim().startsWith('{')).toBe(true);
  return JSON.parse(run.stdout) as Record<string, unknown>;
}

async function get(url: string, key: string) {
  const res = await fetch(url, { headers: { authorization: `Bearer ${key}` } });
  const text = await res.text();
  const body = text ? JSON.parse(text) : undefined;
  // Every answer is checked against docs/openapi.json, as the in-process client does.
  checkResponse('GET', new URL(url).pathname, res.status, res.headers, body);
  return { status: res.status, headers: res.headers, body };
}

/** True when nothing accepts connections on the URL's port any more. */
async function refused(url: string): Promise<boolean> {
  try {
    await fetch(url, { signal: AbortSignal.timeout(2000) });
    return false;
  } catch {
    return true;
  }
}

let stack: RunningStack;
let demoKey: string;
const slug = `lst-${Date.now().toString(36)}`;
let liveKey: string;
let listingId: string;

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'lls-stack-'));
  env = { ...process.env, DATA_DIR: dataDir };
  for (const name of Object.keys(env)) {
    if (/^(DYNAMODB_|TABLE_NAME|AUTH_CACHE|LOG_LEVEL|POWERTOOLS|AWS_|VITEST)/.test(name)) delete env[name];
  }
  stack = await startStack(await freePort());
}, 70_000);

afterAll(async () => {
  for (const child of stacks) {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGINT');
      await exited(child, 10_000).catch(() => undefined);
    }
    // Whatever is left of it: a stack stopped while starting leaves its DynamoDB Local behind.
    killStack(child);
  }
  rmSync(dataDir, { recursive: true, force: true });
}, 20_000);

describe('npm start, first run', () => {
  it('prints demo keys once and serves the demo catalogue to them', async () => {
    // Prepare
    const key = KEY.exec(stack.output())?.[0];
    expect(key, stack.output()).toBeDefined();
    demoKey = key as string;
    // Act
    const res = await get(`${stack.url}/v1/places`, demoKey);
    // Assess
    expect(stack.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(res.status).toBe(200);
    expect(res.body.data.map((p: { code: string }) => p.code)).toContain('ES-MA-MAR');
    expect(existsSync(join(dataDir, 'dynamodb'))).toBe(true);
  });
});

describe('admin CLI against the running stack', () => {
  it('creates a tenant and prints only {id, slug} on stdout', async () => {
    // Act
    const run = await admin(
      'tenant',
      'create',
      '--slug',
      slug,
      '--name',
      'Stack Test Realty',
      '--languages',
      'en,es',
    );
    // Assess
    expect(run.code, run.stderr).toBe(0);
    const body = JSON.parse(run.stdout);
    expect(Object.keys(body).sort()).toEqual(['id', 'slug']);
    expect(body.slug).toBe(slug);
    expect(body.id).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('creates keys that work at once, and a revoked key gets 401', async () => {
    // Act: two processes side by side (each admin command starts its own node)
    const [created, other] = await Promise.all([
      adminJson(
        'key',
        'create',
        '--tenant',
        slug,
        '--name',
        'short-lived',
        '--scopes',
        'properties:read,properties:write',
      ),
      adminJson('key', 'create', '--tenant', slug, '--name', 'keeper', '--scopes', 'properties:write'),
    ]);
    // Assess
    expect(Object.keys(created).sort()).toEqual(['id', 'key']);
    const key = created.key as string;
    liveKey = other.key as string;
    expect(key).toMatch(/^svc_live_/);
    const before = await get(`${stack.url}/v1/properties`, key);
    expect(before.status).toBe(200);
    expect(before.body).toEqual({ data: [], next_cursor: null });
    const post = await fetch(`${stack.url}/v1/properties`, {
      method: 'POST',
      headers: { authorization: `Bearer ${liveKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ title: 'Survives a restart', place_code: 'ES-MA-MAR' }),
    });
    const created201 = await post.json();
    checkResponse('POST', '/v1/properties', post.status, post.headers, created201);
    expect(post.status).toBe(201);
    listingId = (created201 as { id: string }).id;

    // Act
    const revoked = await adminJson('key', 'revoke', '--tenant', slug, '--id', created.id as string);
    // Assess
    expect(revoked.id).toBe(created.id);
    expect(Number.isNaN(Date.parse(revoked.revoked_at as string))).toBe(false);
    const after = await get(`${stack.url}/v1/properties`, key);
    expect(after.status).toBe(401);
    expect(after.headers.get('www-authenticate')).toBe('Bearer');
    expect((await get(`${stack.url}/v1/properties/${listingId}`, liveKey)).status).toBe(200);
  });

  it('suspends a tenant: its keys get 503 at once, other tenants are unaffected', async () => {
    // Act
    const suspended = await adminJson('tenant', 'update', '--tenant', slug, '--suspended', 'true');
    const whileSuspended = await get(`${stack.url}/v1/properties`, liveKey);
    const demo = await get(`${stack.url}/v1/properties`, demoKey);
    const resumed = await adminJson('tenant', 'update', '--tenant', slug, '--suspended', 'false');
    const afterResume = await get(`${stack.url}/v1/properties`, liveKey);
    // Assess
    expect(suspended).toMatchObject({
      slug,
      name: 'Stack Test Realty',
      languages: ['en', 'es'],
      suspended: true,
    });
    expect(whileSuspended.status).toBe(503);
    expect(demo.status).toBe(200);
    expect(resumed).toMatchObject({ slug, suspended: false });
    expect(afterResume.status).toBe(200);
  });

  it('reports an error as one stderr line, exit code 1 and nothing on stdout', async () => {
    // Act: three independent commands, side by side
    const [unknownTenant, missingFlag, unknownCommand] = await Promise.all([
      admin('tenant', 'show', '--tenant', 'no-such-tenant-here'),
      admin('key', 'create', '--tenant', slug, '--scopes', 'properties:read'),
      admin('tenant', 'explode'),
    ]);
    // Assess
    for (const run of [unknownTenant, missingFlag, unknownCommand]) {
      expect(run.code).toBe(1);
      expect(run.stdout).toBe('');
      expect(run.stderr.endsWith('\n')).toBe(true);
      expect(run.stderr.trimEnd().split('\n')).toHaveLength(1);
    }
    expect(unknownTenant.stderr).toContain('no-such-tenant-here');
    expect(missingFlag.stderr).toContain('--name');
  });

  it('creates and imports places that GET /v1/places then serves', async () => {
    // Prepare
    const code = `T${Date.now().toString(36).toUpperCase()}`;
    const file = join(dataDir, 'places.json');
    writeFileSync(
      file,
      JSON.stringify([
        { code: `${code}-MAR-X`, name: 'Import Leaf', parent: `${code}-MAR`, kind: 'neighborhood' },
        { code: `${code}-MAR`, name: 'Import Town', parent: code, kind: 'municipality' },
        { code: `${code}-BAD`, name: 'Orphan', parent: 'NO-SUCH-PARENT' },
      ]),
    );
    // Act
    const created = await adminJson(
      'place',
      'create',
      '--code',
      code,
      '--name',
      'Test Coast',
      '--parent',
      'ES-MA',
    );
    const imported = await adminJson('place', 'import', '--file', file);
    const places = await get(`${stack.url}/v1/places`, demoKey);
    // Assess
    expect(created).toMatchObject({ code, name: 'Test Coast', parent_code: 'ES-MA' });
    expect((created.path as { code: string }[]).map((p) => p.code)).toEqual(['ES', 'ES-AN', 'ES-MA', code]);
    expect(imported).toMatchObject({ total: 3, imported: 2, failed: 1, failures: [{ code: `${code}-BAD` }] });
    const served = new Map(places.body.data.map((p: { code: string }) => [p.code, p]));
    expect(served.get(code)).toMatchObject({ name: 'Test Coast' });
    expect(served.get(`${code}-MAR-X`)).toMatchObject({
      parent_code: `${code}-MAR`,
      long: expect.stringContaining('Spain'),
    });
    expect(served.has(`${code}-BAD`)).toBe(false);
  });
});

describe('stop and restart', () => {
  it('stops every process on SIGINT and keeps the data for the next start', async () => {
    // Prepare
    const info = JSON.parse(readFileSync(join(dataDir, 'local-stack.json'), 'utf8')) as {
      dynamoEndpoint: string;
    };
    // Act
    stack.child.kill('SIGINT');
    const code = await exited(stack.child, 20_000);
    // Assess
    expect(code).toBe(0);
    expect(existsSync(join(dataDir, 'local-stack.json'))).toBe(false);
    expect(await refused(`${stack.url}/v1/places`)).toBe(true);
    expect(await refused(info.dynamoEndpoint)).toBe(true);

    // Act
    const again = await startStack(await freePort());
    stack = again;
    const shown = await adminJson('tenant', 'show', '--tenant', slug);
    const listing = await get(`${again.url}/v1/properties/${listingId}`, liveKey);
    const places = await get(`${again.url}/v1/places`, demoKey);
    // Assess
    expect(again.output()).not.toMatch(KEY);
    expect(again.output()).toContain('already exists');
    expect(shown).toMatchObject({ slug, name: 'Stack Test Realty', suspended: false });
    expect(listing.status).toBe(200);
    expect(listing.body).toMatchObject({
      title: 'Survives a restart',
      status: 'live',
      place_code: 'ES-MA-MAR',
    });
    expect(places.status).toBe(200);
    // A stop, a whole start and two requests: 35 s in a full run, over 60 s on a loaded machine.
  }, 120_000);
});
