/**
 * Webhooks end to end on the real local stack (`npm start` as a child process, its own DATA_DIR):
 * the API, the stream consumer's fan-out, the delivery worker on the table-backed queue, and
 * receivers on 127.0.0.1 (LOCAL_ALLOW_PRIVATE_URLS=1), with the ladder shrunk by RETRY_DELAY_SCALE.
 * Events are written as the events log writes them (entity `event`, the envelope of
 * docs/events-and-webhooks.md as JSON in `envelope`), since the log itself is built elsewhere.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { DynamoDBClient, PutItemCommand } from '@aws-sdk/client-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../scripts/local/dynamo-local.ts';
import { readStackInfo } from '../../scripts/local/stack-file.ts';
import { runAdminCli } from '../support/cli.ts';
import { checkResponse } from '../support/contract.ts';
import { killStack } from '../support/local-stack.ts';

const ROOT = resolve(import.meta.dirname, '../..');
const READY = /API ready on (http:\/\/127\.0\.0\.1:\d+)/;

interface Received {
  path: string;
  headers: Record<string, string>;
  body: string;
}

/** Receivers by path: each answers with the next status of its script (the last one repeats). */
const scripts = new Map<string, number[]>();
const received: Received[] = [];
let receiver: Server;
let receiverUrl: string;

let dataDir: string;
let env: NodeJS.ProcessEnv;
let apiUrl: string;
let stackChild: ChildProcess | undefined;
let tenantId: string;
const slug = `wh-${Date.now().toString(36)}`;
let key: string;
let narrowKey: string;

async function startStack(): Promise<void> {
  const port = await freePort();
  const child = spawn(process.execPath, ['scripts/local/start.ts'], {
    cwd: ROOT,
    env: { ...env, PORT: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true, // killStack ends its DynamoDB Local with it
  });
  stackChild = child;
  let out = '';
  const onData = (chunk: Buffer) => {
    out += chunk.toString('utf8');
  };
  child.stdout?.on('data', onData);
  child.stderr?.on('data', onData);
  apiUrl = await new Promise<string>((resolveUrl, reject) => {
    const timer = setTimeout(() => reject(new Error(`stack not ready:\n${out}`)), 120_000);
    child.stdout?.on('data', () => {
      const match = READY.exec(out);
      if (match) {
        clearTimeout(timer);
        resolveUrl(match[1] as string);
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`stack exited (${code}):\n${out}`));
    });
  });
}

async function stopStack(): Promise<void> {
  const child = stackChild;
  if (!child) return;
  if (child.exitCode === null && child.signalCode === null) {
    const done = new Promise((r) => child.once('exit', r));
    child.kill('SIGINT');
    await Promise.race([done, new Promise((r) => setTimeout(r, 20_000))]);
  }
  // Whatever is left of it (its DynamoDB Local, if it died while starting), before a restart on its data.
  killStack(child);
}

/** What the admin CLI printed; by default a created object (a tenant's `id`, a key's `key`…). */
interface Created {
  id: string;
  key: string;
  secret: string;
}
/** An email of the outbox, as `admin email list` prints it. */
interface Mail {
  subject: string;
  to: string;
  text: string;
}
async function adminJson<T = Created>(...args: string[]): Promise<T> {
  const run = await runAdminCli(env, ...args);
  expect(run.code, run.stderr).toBe(0);
  return JSON.parse(run.stdout) as T;
}

async function api(method: string, path: string, body?: unknown, withKey = key) {
  const res = await fetch(apiUrl + path, {
    method,
    headers: { authorization: `Bearer ${withKey}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  const text = await res.text();
  const parsed = text ? JSON.parse(text) : undefined;
  // Every answer is checked against docs/openapi.json, as the in-process client does.
  checkResponse(method, path, res.status, res.headers, parsed);
  return { status: res.status, body: parsed };
}

async function until<T>(
  what: string,
  probe: () => Promise<T | undefined> | T | undefined,
  timeoutMs = 90_000,
) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined && value !== false) return value as T;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

const at = (path: string) => received.filter((r) => r.path === path);

/** Writes an event item as the events log does (the contract between the two). */
async function writeEvent(
  type: string,
  data: Record<string, unknown>,
): Promise<{ id: string; json: string }> {
  const info = readStackInfo(dataDir);
  if (!info) throw new Error('no running stack');
  const id = randomUUID();
  const envelope = {
    id,
    type,
    version: 1,
    created_at: new Date().toISOString().replace('Z', '000+00:00'),
    tenant: { slug },
    data,
  };
  const json = JSON.stringify(envelope);
  const client = new DynamoDBClient({
    endpoint: info.dynamoEndpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
  await client.send(
    new PutItemCommand({
      TableName: info.tableName,
      Item: marshall({
        pk: `t#${tenantId}#test-event#${id}`,
        sk: 'event',
        __edb_e__: 'event',
        __edb_v__: '1',
        tenantId,
        id,
        type,
        createdAt: envelope.created_at,
        envelope: json,
      }),
    }),
  );
  client.destroy();
  return { id, json };
}

async function subscribe(path: string, events: string[]): Promise<{ id: string; secret: string }> {
  const res = await api('POST', '/v1/webhooks/subscriptions', { url: `${receiverUrl}${path}`, events });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
}

beforeAll(async () => {
  receiver = createServer((req: IncomingMessage, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const path = req.url ?? '/';
      received.push({
        path,
        headers: req.headers as Record<string, string>,
        body: Buffer.concat(chunks).toString('utf8'),
      });
      const script = scripts.get(path) ?? [200];
      const status = script.length > 1 ? (script.shift() as number) : (script[0] as number);
      res.writeHead(status, { 'content-type': 'text/plain' });
      res.end(`answer ${status}`);
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', () => r()));
  const address = receiver.address() as { port: number };
  receiverUrl = `http://127.0.0.1:${address.port}`;

  dataDir = mkdtempSync(join(tmpdir(), 'lls-webhooks-'));
  env = { ...process.env, DATA_DIR: dataDir };
  for (const name of Object.keys(env)) {
    if (/^(DYNAMODB_|TABLE_NAME|AUTH_CACHE|LOG_LEVEL|POWERTOOLS|AWS_|VITEST)/.test(name)) delete env[name];
  }
  // A minute is 6 ms: the whole ladder (about 68.6 hours) takes about 25 s. No demo catalogue: its
  // minutes of listings, photos and their stream records would sit before this file's events.
  Object.assign(env, { LOCAL_ALLOW_PRIVATE_URLS: '1', RETRY_DELAY_SCALE: '0.0001', DEMO_CATALOGUE: 'off' });
  await startStack();
  tenantId = (await adminJson('tenant', 'create', '--slug', slug, '--name', 'Webhook Co')).id;
  // Each admin command is a process of its own (seconds on a loaded machine): the three that only
  // need the tenant run side by side.
  const [wide, narrow] = await Promise.all([
    adminJson(
      'key',
      'create',
      '--tenant',
      slug,
      '--name',
      'hooks',
      '--scopes',
      'webhooks:manage,leads:read,properties:read,activities:read',
    ),
    adminJson('key', 'create', '--tenant', slug, '--name', 'narrow', '--scopes', 'webhooks:manage'),
    adminJson(
      'agent',
      'create',
      '--tenant',
      slug,
      '--name',
      'Ada Admin',
      '--email',
      'ada@example.com',
      '--admin',
    ),
  ]);
  key = wide.key;
  narrowKey = narrow.key;
}, 240_000);

afterAll(async () => {
  await stopStack();
  receiver?.closeAllConnections();
  receiver?.close();
  rmSync(dataDir, { recursive: true, force: true });
}, 60_000);

describe('webhook endpoints API', () => {
  it('refuses bad input with 422 items, a missing read scope with 403', async () => {
    const bad = await api('POST', '/v1/webhooks/subscriptions', {
      url: `${receiverUrl}/x`,
      events: ['lead.created', 'ping', 'lead.exploded'],
    });
    expect(bad.status).toBe(422);
    expect(bad.body.detail.map((d: { loc: unknown[] }) => d.loc)).toEqual([
      ['body', 'events', 1],
      ['body', 'events', 2],
    ]);
    const empty = await api('POST', '/v1/webhooks/subscriptions', { url: `${receiverUrl}/x`, events: [] });
    expect(empty.status).toBe(422);
    const forbidden = await api(
      'POST',
      '/v1/webhooks/subscriptions',
      { url: `${receiverUrl}/x`, events: ['lead.created'] },
      narrowKey,
    );
    expect(forbidden.status).toBe(403);
    expect(forbidden.body.detail).toMatch(/leads:read/);
  });

  it('creates, lists, reads, rotates and unsubscribes (only the same key), never showing the secret again', async () => {
    const created = await subscribe('/crud', ['property.created']);
    expect(created.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(created).toMatchObject({
      url: `${receiverUrl}/crud`,
      events: ['property.created'],
      enabled: true,
      created_via: 'api',
    });
    const list = await api('GET', '/v1/webhooks');
    expect(list.body.data.map((e: { id: string }) => e.id)).toContain(created.id);
    expect(JSON.stringify(list.body)).not.toContain('whsec_');
    const one = await api('GET', `/v1/webhooks/${created.id}`);
    expect(one.body.secret).toBeUndefined();
    const rotated = await api('POST', `/v1/webhooks/${created.id}/rotate-secret`);
    expect(rotated.status).toBe(200);
    expect(rotated.body.secret).not.toBe(created.secret);
    const other = await api('DELETE', `/v1/webhooks/subscriptions/${created.id}`, undefined, narrowKey);
    expect(other.status).toBe(404);
    expect((await api('DELETE', `/v1/webhooks/subscriptions/${created.id}`)).status).toBe(204);
    expect((await api('GET', `/v1/webhooks/${created.id}`)).status).toBe(404);
    const cli = await adminJson(
      'webhook',
      'create',
      '--tenant',
      slug,
      '--url',
      `${receiverUrl}/console`,
      '--events',
      'lead.created',
    );
    expect(cli.secret).toMatch(/^whsec_/);
    const listed = await adminJson<{ id: string; created_via: string }[]>(
      'webhook',
      'list',
      '--tenant',
      slug,
    );
    expect(listed.find((e) => e.id === cli.id)?.created_via).toBe('console');
    expect((await api('DELETE', `/v1/webhooks/subscriptions/${cli.id}`)).status).toBe(404);
    // Two admin commands, each a process of its own: more than the default 30 s on a loaded machine.
  }, 90_000);
});

describe('delivery and the ladder', () => {
  it('retries a failing receiver with the same webhook-id and a signature that verifies, logging every attempt', async () => {
    scripts.set('/flaky', [500, 503, 302, 200]);
    const endpoint = await subscribe('/flaky', ['lead.created']);
    const event = await writeEvent('lead.created', { id: randomUUID(), name: 'Ana' });

    const attempts = await until('4 attempts at /flaky', () =>
      at('/flaky').length >= 4 ? at('/flaky') : undefined,
    );
    const verifier = new Webhook(endpoint.secret);
    for (const attempt of attempts) {
      expect(attempt.headers['webhook-id']).toBe(event.id);
      expect(attempt.body).toBe(event.json);
      expect(attempt.headers['content-type']).toBe('application/json');
      expect(attempt.headers['user-agent']).toMatch(/ListingsLeads/);
      expect(verifier.verify(attempt.body, attempt.headers)).toEqual(JSON.parse(event.json));
    }
    const deliveries = await until('the delivery to succeed', async () => {
      const page = await api('GET', `/v1/webhooks/${endpoint.id}/deliveries`);
      return page.body.data[0]?.status === 'succeeded' ? page.body.data : undefined;
    });
    expect(deliveries).toHaveLength(1);
    expect(deliveries[0]).toMatchObject({
      event_id: event.id,
      event_type: 'lead.created',
      next_attempt_at: null,
    });
    expect(
      deliveries[0].attempts.map((a: { number: number; trigger: string; status_code: number }) => [
        a.number,
        a.trigger,
        a.status_code,
      ]),
    ).toEqual([
      [1, 'auto', 500],
      [2, 'auto', 503],
      [3, 'auto', 302],
      [4, 'auto', 200],
    ]);
    expect(deliveries[0].attempts[0].response_body).toBe('answer 500');

    // Redelivery: same webhook-id, fresh signature, logged as manual.
    const redelivered = await api(
      'POST',
      `/v1/webhooks/${endpoint.id}/deliveries/${deliveries[0].id}:redeliver`,
    );
    expect(redelivered.status).toBe(202);
    const fifth = await until('the redelivery', () => at('/flaky')[4]);
    expect(fifth.headers['webhook-id']).toBe(event.id);
    expect(verifier.verify(fifth.body, fifth.headers)).toBeTruthy();
    await until('the manual attempt logged', async () => {
      const page = await api('GET', `/v1/webhooks/${endpoint.id}/deliveries`);
      return page.body.data[0].attempts[4]?.trigger === 'manual' || undefined;
    });
  }, 120_000);

  it('sends a ping on test; a 410 disables the endpoint at once and emails the Tenant Admins', async () => {
    scripts.set('/gone', [410]);
    const endpoint = await subscribe('/gone', ['lead.created']);
    const test = await api('POST', `/v1/webhooks/${endpoint.id}/test`);
    expect(test.status).toBe(202);
    expect(test.body).toMatchObject({ event_type: 'ping', status: 'pending' });
    const ping = await until('the ping', () => at('/gone')[0]);
    expect(JSON.parse(ping.body)).toMatchObject({
      type: 'ping',
      version: 1,
      tenant: { slug },
      data: { endpoint_id: endpoint.id },
    });
    const disabled = await until('the endpoint disabled', async () => {
      const res = await api('GET', `/v1/webhooks/${endpoint.id}`);
      return res.body.enabled === false ? res.body : undefined;
    });
    expect(disabled.disabled_reason).toBe('gone');
    const outbox = await until('the email', async () => {
      const mails = await adminJson<Mail[]>('email', 'list', '--tenant', slug);
      return mails.find((m) => m.subject.includes('/gone'));
    });
    expect(outbox.to).toBe('ada@example.com');
    expect((await api('POST', `/v1/webhooks/${endpoint.id}/test`)).status).toBe(422);
  }, 120_000);

  it('disables an endpoint after 20 failed attempts in a row and emails the admins; enabling resets the count', async () => {
    scripts.set('/down', [500]);
    const endpoint = await subscribe('/down', ['property.updated']);
    // Failures of attempts made together count once: the events are written one after
    // another's first attempt, so their ladders fail at different moments.
    for (let i = 0; i < 8; i++) {
      const seen = at('/down').length;
      await writeEvent('property.updated', { id: randomUUID(), changed_fields: ['price'] });
      await until('its first attempt', () => at('/down').length > seen || undefined);
    }
    const disabled = await until(
      'the endpoint disabled',
      async () => {
        const res = await api('GET', `/v1/webhooks/${endpoint.id}`);
        return res.body.enabled === false ? res.body : undefined;
      },
      100_000,
    );
    expect(disabled.disabled_reason).toBe('failures');
    expect(disabled.consecutive_failures).toBeGreaterThanOrEqual(20);
    const mails = await until('the email', async () =>
      (await adminJson<Mail[]>('email', 'list', '--tenant', slug)).find((m) => m.subject.includes('/down')),
    );
    expect(mails.text).toMatch(/20 delivery attempts in a row failed/);
    const enabled = await api('PATCH', `/v1/webhooks/${endpoint.id}`, { enabled: true });
    expect(enabled.body).toMatchObject({ enabled: true, consecutive_failures: 0, disabled_reason: null });
  }, 150_000);

  it('loses nothing when npm start stops mid-ladder: the restarted stack delivers the rest', async () => {
    scripts.set('/restart', [500, 500, 500, 500, 500, 500, 200]);
    const endpoint = await subscribe('/restart', ['activity.completed']);
    const event = await writeEvent('activity.completed', { id: randomUUID() });
    await until('two attempts', () => at('/restart').length >= 2 || undefined);
    await stopStack();
    const beforeRestart = at('/restart').length;
    expect(beforeRestart).toBeLessThan(7);
    await startStack();
    await until('the success after the restart', () => at('/restart').length >= 7 || undefined, 120_000);
    expect(new Set(at('/restart').map((r) => r.headers['webhook-id']))).toEqual(new Set([event.id]));
    const page = await until('the delivery succeeded', async () => {
      const res = await api('GET', `/v1/webhooks/${endpoint.id}/deliveries`);
      return res.body.data[0]?.status === 'succeeded' ? res.body.data : undefined;
    });
    // An attempt in flight when the stack stops reaches the receiver but may die before it is logged:
    // the log then holds one 500 fewer than the receiver saw, never a lost or doubled success.
    const codes = page[0].attempts.map((a: { status_code: number }) => a.status_code);
    expect(codes.at(-1)).toBe(200);
    expect(codes.slice(0, -1).every((code: number) => code === 500)).toBe(true);
    expect(codes.length).toBeGreaterThanOrEqual(6);
  }, 240_000);
});
