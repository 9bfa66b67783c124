/**
 * The soak's outside world, in the driver's process (never killed): three webhook receivers and a
 * photo file server, all on 127.0.0.1.
 *
 * - healthy (`/healthy/<slug>`): 204 at once;
 * - flaky (`/flaky/<slug>`): a seeded share of 500s, and a smaller share it sleeps past the
 *   receivers' 10 s (the sender gives up, a failed attempt), else 200;
 * - gone (`/gone/<slug>`): 200 until `startGone()`, then 410 for good;
 * - ladder (`/ladder/<slug>`): fails every attempt (503) of the first DOOMED_PER_ENDPOINT events it
 *   is sent, so that each of those deliveries walks the whole retry ladder, Scheduler rungs included,
 *   and ends failed; 204 to every other event (its successes keep the endpoint from being disabled).
 *
 * Every call is recorded with its signature checked by `standardwebhooks` against the endpoint's secret.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { demoPhoto } from '../local/demo-photos.ts';
import type { ReceivedCall, ReceiverName } from './ledger.ts';

/** Share of the flaky receiver's calls answered 500, and answered after more than 10 s. */
export const FLAKY_ERROR_RATE = 0.2;
export const FLAKY_SLOW_RATE = 0.04;
const FLAKY_SLEEP_MS = 11_000;
/** Events per ladder endpoint whose every attempt fails. */
export const DOOMED_PER_ENDPOINT = 2;

export interface Receivers {
  url: string;
  /** The URL an endpoint for `receiver` of Tenant `slug` subscribes. */
  urlFor(receiver: ReceiverName, slug: string): string;
  /** Tells the receiver which endpoint (and secret) a path belongs to, once subscribed. */
  register(receiver: ReceiverName, slug: string, endpointId: string, secret: string): void;
  /** From now on the gone receiver answers 410. Returns when it started. */
  startGone(): number;
  received: ReceivedCall[];
  /** The webhook-ids the ladder receiver fails every time, by endpoint. */
  doomed: Map<string, string[]>;
  close(): Promise<void>;
}

export async function startReceivers(random: () => number): Promise<Receivers> {
  const endpoints = new Map<string, { endpointId: string; webhook: Webhook }>();
  const received: ReceivedCall[] = [];
  const doomed = new Map<string, string[]>();
  let gone = false;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const [, receiver = '', slug = ''] = (req.url ?? '').split('/');
      const endpoint = endpoints.get(`${receiver}/${slug}`);
      const headers = {
        'webhook-id': String(req.headers['webhook-id'] ?? ''),
        'webhook-timestamp': String(req.headers['webhook-timestamp'] ?? ''),
        'webhook-signature': String(req.headers['webhook-signature'] ?? ''),
      };
      let verified = false;
      try {
        endpoint?.webhook.verify(body, headers);
        verified = endpoint !== undefined;
      } catch {
        verified = false;
      }
      let eventType = '';
      try {
        eventType = String((JSON.parse(body) as { type?: unknown }).type ?? '');
      } catch {
        eventType = '';
      }
      const call: ReceivedCall = {
        endpointId: endpoint?.endpointId ?? `${receiver}/${slug}`,
        webhookId: headers['webhook-id'],
        eventType,
        verified,
        at: Date.now(),
        answered: 200,
      };
      received.push(call);
      const answer = (status: number) => {
        call.answered = status;
        res.writeHead(status).end();
      };
      if (receiver === 'gone') return answer(gone ? 410 : 200);
      if (receiver === 'ladder' && verified) {
        const ids = doomed.get(call.endpointId) ?? [];
        doomed.set(call.endpointId, ids);
        if (
          ids.length < DOOMED_PER_ENDPOINT &&
          !ids.includes(call.webhookId) &&
          !received.some(
            (c) => c !== call && c.endpointId === call.endpointId && c.webhookId === call.webhookId,
          )
        )
          ids.push(call.webhookId);
        return answer(ids.includes(call.webhookId) ? 503 : 204);
      }
      if (receiver === 'flaky') {
        const draw = random();
        if (draw < FLAKY_ERROR_RATE) return answer(500);
        if (draw < FLAKY_ERROR_RATE + FLAKY_SLOW_RATE) {
          // The sender gives up at 10 s: recorded as not answered in time, answered late anyway.
          call.answered = 0;
          setTimeout(() => res.writeHead(200).end(), FLAKY_SLEEP_MS).unref();
          return;
        }
        return answer(200);
      }
      return answer(204);
    });
  });
  // The flaky receiver's sleeping answers must not hold the server open at the end.
  server.keepAliveTimeout = 1_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    urlFor: (receiver, slug) => `${url}/${receiver}/${slug}`,
    register: (receiver, slug, endpointId, secret) =>
      endpoints.set(`${receiver}/${slug}`, { endpointId, webhook: new Webhook(secret) }),
    startGone: () => {
      gone = true;
      return Date.now();
    },
    received,
    doomed,
    close: () => closeServer(server),
  };
}

function closeServer(server: Server): Promise<void> {
  server.closeAllConnections();
  return new Promise((resolve) => server.close(() => resolve()));
}

/** A local file server of photos: `/photo-<n>.jpg` is the demo's seeded JPEG of listing n. */
export async function startPhotoServer(): Promise<{
  urlFor: (n: number) => string;
  close: () => Promise<void>;
}> {
  const server = createServer((req, res) => {
    const n = Number(/photo-(\d+)\.jpg$/.exec(req.url ?? '')?.[1] ?? Number.NaN);
    if (!Number.isInteger(n)) return res.writeHead(404).end();
    const file = demoPhoto({ listing: n, view: 'facade', seaside: n % 2 === 0, floors: 1 + (n % 3) });
    res.writeHead(200, { 'content-type': 'image/jpeg', 'content-length': file.length }).end(file);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { urlFor: (n) => `${url}/photo-${n}.jpg`, close: () => closeServer(server) };
}
