/**
 * A webhook receiver for this service, in plain Node (run: WEBHOOK_SECRET=whsec_… node receiver.ts).
 * It verifies the Standard Webhooks signature over the raw body, refuses timestamps more than five
 * minutes off, answers 204 before doing any work, and handles each webhook-id once.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

const secret = process.env.WEBHOOK_SECRET;
if (!secret?.startsWith('whsec_'))
  throw new Error('Set WEBHOOK_SECRET to the whsec_… secret of the subscription');
const webhook = new Webhook(secret);
const port = Number(process.env.PORT ?? 4000);

// Retries and redeliveries repeat the webhook-id, for up to three days. A real receiver keeps
// handled ids in its database; here the latest 10,000 are remembered in memory.
const handled = new Set<string>();

function handle(event: { id: string; type: string; created_at: string; data: unknown }): void {
  // Your work goes here (queue it if it is slow). This example prints one JSON line per event.
  console.log(
    JSON.stringify({ id: event.id, type: event.type, created_at: event.created_at, data: event.data }),
  );
}

const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    const raw = Buffer.concat(chunks).toString('utf8'); // the exact bytes signed: never re-serialise JSON
    const id = String(req.headers['webhook-id'] ?? '');
    let event: Parameters<typeof handle>[0];
    try {
      // Checks the HMAC of "{webhook-id}.{webhook-timestamp}.{raw body}" and the ±5 min timestamp.
      event = webhook.verify(raw, req.headers as Record<string, string>) as typeof event;
    } catch (error) {
      console.error(`rejected ${id || '(no webhook-id)'}: ${(error as Error).message}`);
      res.writeHead(400).end();
      return;
    }
    res.writeHead(204).end(); // any 2xx within 10 s counts; answer first, work after
    if (handled.has(id)) {
      console.error(`duplicate ${id}: already handled`);
      return;
    }
    handled.add(id);
    if (handled.size > 10_000) handled.delete(handled.values().next().value as string);
    setImmediate(() => handle(event));
  });
});

server.listen(port, '127.0.0.1', () => {
  console.error(`Receiving webhooks on http://127.0.0.1:${(server.address() as AddressInfo).port}/`);
});
