/**
 * The logs carry ids and reason codes, never personal data or secrets: an end-to-end run on the real
 * HTTP server, the stream consumer and the photo import worker, with names, emails, a phone and
 * URL tokens planted, through the paths that log the most (an Owner notice and an endpoint
 * disable notice the email service refuses for good, a photo import that fails on a redirect to a
 * URL with credentials and a token), logging at DEBUG. Every line the run writes (stdout, stderr,
 * the console) is scanned for what was planted.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { format } from 'node:util';
import type { SQSEvent } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { disableEndpointOnce } from '../../functions/data/webhooks.ts';
import { setEmails } from '../../functions/kernel/ports/email.ts';
import { setQueue } from '../../functions/kernel/ports/queue.ts';
import { TURNSTILE_DUMMY_TOKEN } from '../../functions/kernel/ports/turnstile.ts';
import { createAgent } from '../../functions/services/agents.ts';
import { issueSiteKey } from '../../functions/services/site-keys.ts';
import { handler as importWorker } from '../../functions/workers/image-import.ts';
import { bindLocalAdapters } from '../../scripts/local/adapters/index.ts';
import { deliverDue } from '../../scripts/local/queue-poller.ts';
import { asFunction, WORKER_ENTRIES } from '../support/aws-operations.ts';
import { afterIndexLag, eventually } from '../support/eventually.ts';
import { createTestTenant, type TestTenant } from '../support/factories.ts';
import { startTestApi, type TestApi } from '../support/http.ts';
import { ownPhotoQueue } from '../support/photo-queue.ts';
import { startTestStreamConsumer, type TestStreamConsumer } from '../support/stream.ts';

// Every line is logged: the logger is built on its first use, after this.
vi.hoisted(() => {
  process.env.LOG_LEVEL = 'DEBUG';
});
vi.setConfig({ testTimeout: 120_000 });

const tag = randomUUID().replaceAll('-', '').slice(0, 10);
/** What must never reach a log line. */
const planted = {
  leadName: `Quentin Plantedname${tag}`,
  leadEmail: `quentin.${tag}@planted-mail.example`,
  otherLeadName: `Rosalind Plantedother${tag}`,
  otherLeadEmail: `rosalind.${tag}@planted-mail.example`,
  leadPhone: `+34 611 ${tag.replace(/\D/g, '0').slice(0, 3)} ${tag.replace(/\D/g, '1').slice(3, 6)}`,
  ownerName: `Olga Plantedowner${tag}`,
  ownerEmail: `owner.${tag}@planted-agency.example`,
  adminEmail: `admin.${tag}@planted-agency.example`,
  refererToken: `referer-token-${tag}`,
  importToken: `import-token-${tag}`,
  redirectPassword: `redirect-password-${tag}`,
  redirectToken: `redirect-token-${tag}`,
  webhookToken: `webhook-token-${tag}`,
};
/** The phone's digits as they may be logged once normalised (E.164). */
const phoneDigits = planted.leadPhone.replace(/\D/g, '').slice(2);

// ── Capturing every line the process writes ──
const captured: string[] = [];
const writes = { stdout: process.stdout.write, stderr: process.stderr.write };
const CONSOLE_METHODS = ['log', 'info', 'warn', 'error', 'debug'] as const;

let spies: { mockRestore: () => void }[] = [];

function startCapture(): void {
  const keep = (chunk: unknown) => {
    captured.push(typeof chunk === 'string' ? chunk : Buffer.from(chunk as Uint8Array).toString('utf8'));
    return true;
  };
  process.stdout.write = keep as typeof process.stdout.write;
  process.stderr.write = keep as typeof process.stderr.write;
  spies = CONSOLE_METHODS.map((method) =>
    vi.spyOn(console, method).mockImplementation((...args: unknown[]) => void keep(`${format(...args)}\n`)),
  );
}

/** Stops capturing (again: a no-op). */
function stopCapture(): void {
  process.stdout.write = writes.stdout;
  process.stderr.write = writes.stderr;
  for (const spy of spies) spy.mockRestore();
  spies = [];
}

// ── The photo import's own queue and the photo server ──
const { name: IMPORT_QUEUE, port: fileQueue } = ownPhotoQueue();
const worker = asFunction(WORKER_ENTRIES.imageImport, importWorker);
async function drainImports(): Promise<void> {
  while (
    (await deliverDue(IMPORT_QUEUE as never, worker as (event: SQSEvent) => Promise<unknown> as never)) > 0
  ) {
    // a message may be retried
  }
}

/** `/moved` redirects to a URL with credentials and a token (refused: invalid_url); the rest is 404. */
function startPhotoServer(): Promise<Server> {
  const server = createServer((req, res) => {
    const { port } = server.address() as AddressInfo;
    if ((req.url ?? '').startsWith('/moved')) {
      res
        .writeHead(302, {
          location: `http://uploader:${planted.redirectPassword}@127.0.0.1:${port}/photo.jpg?token=${planted.redirectToken}`,
        })
        .end();
      return;
    }
    res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
  });
  return new Promise((done) => server.listen(0, '127.0.0.1', () => done(server)));
}

// ── The run ──
const PAGE = 'https://www.logs.example';
let api: TestApi;
let tenant: TestTenant;
let consumer: TestStreamConsumer;
let photoServer: Server;
/** Recipients the email service was asked to send to (it refuses each for good, as SES's sandbox does). */
const refusedRecipients: string[] = [];

beforeAll(async () => {
  tenant = await createTestTenant();
  const [owner] = await Promise.all([
    createAgent({ tenantId: tenant.tenantId, name: planted.ownerName, email: planted.ownerEmail }),
    createAgent({
      tenantId: tenant.tenantId,
      name: `Admin ${tag}`,
      email: planted.adminEmail,
      isAdmin: true,
    }),
  ]);
  await afterIndexLag();
  ownerId = owner.id;
  setEmails({
    send: async (email) => {
      refusedRecipients.push(email.to);
      // SES's own wording: the refused identities are named in the message.
      throw Object.assign(
        new Error(
          `Email address is not verified. The following identities failed the check in region US-EAST-1: ${email.to}`,
        ),
        { name: 'MessageRejected' },
      );
    },
  });
  setQueue(fileQueue);
  process.env.LOCAL_ALLOW_PRIVATE_URLS = '1';
  photoServer = await startPhotoServer();
  consumer = await startTestStreamConsumer([tenant.tenantId]);
  api = await startTestApi(tenant.key);
});
let ownerId: string;

afterAll(async () => {
  stopCapture();
  consumer?.stop();
  photoServer?.close();
  delete process.env.LOCAL_ALLOW_PRIVATE_URLS;
  bindLocalAdapters();
  await api?.close();
});

describe('the logs of an end-to-end run', () => {
  it('carry no name, email, phone or URL token that was planted', async () => {
    startCapture();
    // Act: a website Inquiry naming the Owner, an ingested Lead with a phone.
    const siteKey = (await issueSiteKey({ tenantId: tenant.tenantId, origins: PAGE })).key;
    const inquiry = await api.call('POST', `/v1/site/leads?${new URLSearchParams({ key: siteKey })}`, {
      key: null,
      body: {
        name: planted.leadName,
        email: planted.leadEmail,
        message: `Call me on ${planted.leadPhone}`,
        agent_id: ownerId,
        turnstile: TURNSTILE_DUMMY_TOKEN,
      },
      headers: { origin: PAGE, referer: `${PAGE}/contact?session=${planted.refererToken}` },
    });
    expect(inquiry.status, inquiry.text).toBe(201);
    const ingested = await api.call('POST', '/v1/leads:ingest', {
      body: {
        source: 'idealista',
        type: 'inquiry',
        person: { name: planted.otherLeadName, email: planted.otherLeadEmail, phone: planted.leadPhone },
        message: `Reach me at ${planted.otherLeadEmail}`,
      },
    });
    expect(ingested.status, ingested.text).toBe(201);
    // Act: a webhook endpoint with a token in its URL, disabled as a 410 disables it.
    const hook = await api.call('POST', '/v1/webhooks/subscriptions', {
      body: {
        url: `https://93.184.216.34/hooks?token=${planted.webhookToken}`,
        events: ['activity.completed'],
      },
    });
    expect(hook.status, hook.text).toBe(201);
    expect(await disableEndpointOnce(tenant.tenantId, hook.body.id, 'gone')).toBe(true);
    // Act: a photo import from a URL with a token, redirected to one with credentials and a token.
    const listing = await api.call('POST', '/v1/properties', { body: { title: 'Logged flat' } });
    expect(listing.status, listing.text).toBe(201);
    const base = `http://127.0.0.1:${(photoServer.address() as AddressInfo).port}`;
    const imported = await api.call('POST', `/v1/properties/${listing.body.id}/images:import`, {
      body: { url: `${base}/moved?token=${planted.importToken}` },
    });
    expect(imported.status, imported.text).toBe(202);
    await drainImports();
    const failed = await api.call(
      'GET',
      `/v1/properties/${listing.body.id}/images:import/${imported.body.id}`,
    );
    expect(failed.body).toMatchObject({ status: 'failed', failure_reason: 'invalid_url' });
    // The stream consumer tried the Owner notice and the disable notice (each refused for good), and
    // logged each refusal: the log line follows the refused send, so the wait is for both.
    const parkedLogged = () =>
      captured.join('').includes('owner notice parked') &&
      captured.join('').includes('endpoint disable notice parked');
    const tried = await eventually(
      async () => [...refusedRecipients],
      (to) => to.includes(planted.ownerEmail) && to.includes(planted.adminEmail) && parkedLogged(),
      { timeoutMs: 60_000 },
    );
    stopCapture();
    expect(tried).toEqual(expect.arrayContaining([planted.ownerEmail, planted.adminEmail]));

    // Assess: the run was logged, its refusals included (ids and reason codes)…
    const logs = captured.join('');
    expect(logs).toContain('"message":"request"');
    expect(logs).toContain('owner notice parked');
    expect(logs).toContain('endpoint disable notice parked');
    expect(logs).toContain('photo import failed');
    expect(logs).toContain('invalid_url');
    // …and nothing planted.
    const leaked = Object.entries({ ...planted, phoneDigits }).filter(([, value]) =>
      logs.toLowerCase().includes(value.toLowerCase()),
    );
    expect(leaked.map(([name]) => name)).toEqual([]);
  });
});
