/**
 * The example receiver (examples/webhook-receiver/receiver.ts), run as a user runs it, against
 * `npm start`: subscribed through the API, it gets real signed deliveries of a listing's changes,
 * verifies them, ignores a redelivery of a webhook-id it handled, and refuses a stale timestamp,
 * a tampered body and another secret's signature.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../scripts/local/dynamo-local.ts';
import { checkResponse } from '../support/contract.ts';
import { type LocalStack, startLocalStack } from '../support/local-stack.ts';

const ROOT = resolve(import.meta.dirname, '../..');

let stack: LocalStack;
let key: string;
let receiver: ChildProcess | undefined;
let receiverUrl: string;
let secret: string;
let endpointId: string;
let stdout = '';
let stderr = '';

interface Handled {
  id: string;
  type: string;
  data: Record<string, unknown>;
}

const handledEvents = (): Handled[] =>
  stdout
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Handled);

async function api(method: string, path: string, body?: unknown) {
  const res = await fetch(stack.url + path, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  const text = await res.text();
  const parsed = text ? JSON.parse(text) : undefined;
  checkResponse(method, path, res.status, res.headers, parsed);
  return { status: res.status, body: parsed };
}

/**
 * Waits for what the stack delivers: the stack writes no demo catalogue (DEMO_CATALOGUE=off), so the
 * receiver gets only this file's events, not minutes of the catalogue's behind them on a loaded machine.
 */
async function until<T>(what: string, probe: () => Promise<T | undefined> | T | undefined): Promise<T> {
  const deadline = Date.now() + 150_000;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}\n${stdout}\n${stderr}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

beforeAll(async () => {
  // Without the demo catalogue: its listings' events would reach the receiver before this file's own.
  stack = await startLocalStack({ env: { LOCAL_ALLOW_PRIVATE_URLS: '1', DEMO_CATALOGUE: 'off' } });
  key = /demo-full-access\s+(svc_live_[A-Za-z0-9_-]+)/.exec(stack.output())?.[1] as string;
  expect(key, stack.output()).toBeDefined();
  await until('the stack to leave the demo catalogue out', () =>
    /Demo catalogue: off/.test(stack.output()) ? true : undefined,
  );
  // As docs/events-and-webhooks.md says: subscribe the receiver's address, then start it with the secret.
  const port = await freePort();
  receiverUrl = `http://127.0.0.1:${port}/`;
  const subscribed = await api('POST', '/v1/webhooks/subscriptions', {
    url: receiverUrl,
    events: ['property.created', 'property.updated'],
  });
  expect(subscribed.status, JSON.stringify(subscribed.body)).toBe(201);
  ({ id: endpointId, secret } = subscribed.body);

  const child = spawn(process.execPath, ['examples/webhook-receiver/receiver.ts'], {
    cwd: ROOT,
    env: { ...stack.env, WEBHOOK_SECRET: secret, PORT: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  receiver = child;
  child.stdout?.on('data', (chunk: Buffer) => {
    stdout += chunk.toString('utf8');
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  await until('the receiver to listen', () => (stderr.includes('Receiving webhooks on') ? true : undefined));
}, 400_000);

afterAll(async () => {
  receiver?.kill('SIGTERM');
  await stack?.stop();
}, 30_000);

describe('examples/webhook-receiver against npm start', () => {
  let createdEventId: string;

  it('receives, verifies and handles a listing created and then changed through the API', async () => {
    // Act
    const created = await api('POST', '/v1/properties', {
      title: 'Receiver test flat',
      price: '250000',
      currency: 'EUR',
      ai_enrichment: false, // no enrichment write: the changes are exactly the two calls below
    });
    expect(created.status).toBe(201);
    const propertyId = created.body.id as string;
    const createdEvent = await until('property.created at the receiver', () =>
      handledEvents().find((e) => e.type === 'property.created' && e.data.id === propertyId),
    );
    createdEventId = createdEvent.id;
    const patched = await api('PATCH', `/v1/properties/${propertyId}`, { price: '240000' });
    expect(patched.status).toBe(200);
    const updated = await until('property.updated at the receiver', () =>
      handledEvents().find((e) => e.type === 'property.updated' && e.data.id === propertyId),
    );
    // Assess: the events are the service's, and the service logged the receiver's 204s
    expect(updated.data.changed_fields).toContain('price');
    const deliveries = await api('GET', `/v1/webhooks/${endpointId}/deliveries?limit=200`);
    const ours = (
      deliveries.body.data as { event_id: string; status: string; attempts: { status_code: number }[] }[]
    ).filter((d) => d.event_id === createdEventId || d.event_id === updated.id);
    expect(ours).toHaveLength(2);
    for (const delivery of ours) {
      expect(delivery.status).toBe('succeeded');
      expect(delivery.attempts[0]?.status_code).toBe(204);
    }
    expect(stderr).not.toContain('rejected');
  }, 330_000);

  it('answers a redelivery of a handled webhook-id with 2xx and does not handle it twice', async () => {
    // Prepare
    const deliveries = await api('GET', `/v1/webhooks/${endpointId}/deliveries?limit=200`);
    const delivery = (deliveries.body.data as { id: string; event_id: string }[]).find(
      (d) => d.event_id === createdEventId,
    );
    expect(delivery).toBeDefined();
    // Act
    const redeliver = await api('POST', `/v1/webhooks/${endpointId}/deliveries/${delivery?.id}:redeliver`);
    expect(redeliver.status).toBeLessThan(300);
    await until('the duplicate to be noticed', () =>
      stderr.includes(`duplicate ${createdEventId}`) ? true : undefined,
    );
    // Assess: the service saw a success, the receiver handled the event once
    const after = await api('GET', `/v1/webhooks/${endpointId}/deliveries?limit=200`);
    const attempts = (
      after.body.data as { id: string; attempts: { trigger: string; status_code: number }[] }[]
    ).find((d) => d.id === delivery?.id)?.attempts;
    expect(attempts?.map((a) => [a.trigger, a.status_code])).toEqual([
      ['auto', 204],
      ['manual', 204],
    ]);
    expect(handledEvents().filter((e) => e.id === createdEventId)).toHaveLength(1);
  }, 180_000);

  it('refuses a stale timestamp, a tampered body and a signature made with another secret', async () => {
    const body = JSON.stringify({ id: 'stale', type: 'ping', version: 1, data: {} });
    const send = async (headers: Record<string, string>, payload = body) =>
      (await fetch(receiverUrl, { method: 'POST', headers, body: payload })).status;
    const signed = (id: string, at: Date, withSecret = secret, payload = body) => ({
      'content-type': 'application/json',
      'webhook-id': id,
      'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
      'webhook-signature': new Webhook(withSecret).sign(id, at, payload),
    });
    // Act + Assess: a correct signature over a timestamp six minutes old is refused
    expect(await send(signed('msg_stale', new Date(Date.now() - 360_000)))).toBe(400);
    // The receiver answers first and logs after: wait for the line.
    await expect.poll(() => stderr).toMatch(/rejected msg_stale: Message timestamp too old/);
    expect(await send(signed('msg_tampered', new Date()), body.replace('ping', 'pong'))).toBe(400);
    const otherSecret = `whsec_${Buffer.from('another secret of 24 bytes').toString('base64')}`;
    expect(await send(signed('msg_other', new Date(), otherSecret))).toBe(400);
    expect(await send({ 'content-type': 'application/json' })).toBe(400);
    // ...while the same message signed now is accepted and handled
    expect(await send(signed('msg_fresh', new Date()))).toBe(204);
    await until('the fresh message', () => handledEvents().find((e) => e.id === 'stale'));
    expect(handledEvents().map((e) => e.type)).not.toContain('pong');
  }, 30_000);
});
