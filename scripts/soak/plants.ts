/**
 * Faults the soak can plant: `npm run soak -- --plant NAME`. Each one breaks the
 * stack the way a real bug would, in the part where that bug would live, so that the audit must
 * fail and name what was lost; `npm run test:slow` runs some of them and checks that they fail.
 *
 * Read only by the soak's own processes (scripts/soak/part.ts, through SOAK_PLANT, and the
 * Scheduler stand-in in scripts/local/adapters/webhook-ladder.ts): nothing under functions/ reads
 * them, so no Lambda can enable one.
 */
import { randomUUID } from 'node:crypto';
import type { MiddlewareStack } from '@smithy/types';
import type { SQSEvent } from 'aws-lambda';

export const PLANTS = {
  'drop-event:lead.updated': 'the stream consumer never writes lead.updated events',
  'drop-event:lead.assigned': 'the stream consumer never writes lead.assigned events',
  'drop-event:property.went_live': 'the stream consumer never writes property.went_live events',
  'drop-event:activity.completed': 'the stream consumer never writes activity.completed events',
  'ack-scoring': 'the AI worker acknowledges every scoring message without scoring',
  'ack-enrichment': 'the AI worker acknowledges every enrichment message without enriching',
  'drop-owner-email': 'the stream consumer drops every Owner email about an Inquiry',
  'webhook-twice-new-id': 'the delivery worker sends every healthy delivery again under a new webhook-id',
  'event-twice': 'the stream consumer writes every lead.updated event a second time under another id',
  'stream-ack-unprocessed': 'the stream consumer acknowledges every fourth record without processing it',
  'lose-scheduled-rung': 'the Scheduler stand-in deletes a due schedule without sending it',
} as const;

export type PlantName = keyof typeof PLANTS;

/** What the audit must say of each plant: a failure line naming the loss. */
export const PLANT_VERDICTS: Record<PlantName, RegExp> = {
  'drop-event:lead.updated': /missing lead\.updated for /,
  'drop-event:lead.assigned': /missing lead\.assigned for /,
  'drop-event:property.went_live': /missing property\.went_live for /,
  'drop-event:activity.completed': /missing activity\.completed for /,
  'ack-scoring': /scoring runs for \S+: 0 of \d/,
  'ack-enrichment': /asked for enrichment and is pending/,
  'drop-owner-email': /Owner emails for \S+: 0 of \d/,
  'webhook-twice-new-id': /healthy got msg_\S+, no such event/,
  'event-twice': /lead\.updated \S+ for \S+ \([^)]*\): no change in the ledger explains it/,
  'stream-ack-unprocessed': /missing [a-z]+\.[a-z_]+ for /,
  'lose-scheduled-rung': /schedule \S+ was created and never fired/,
};

/** The plant this process runs with, if any. */
export function plantedFault(env: NodeJS.ProcessEnv = process.env): PlantName | undefined {
  const name = env.SOAK_PLANT;
  return name && name in PLANTS ? (name as PlantName) : undefined;
}

/** The plants test:slow runs for a seed: three, rotating through the list. */
export function plantsForSeed(seed: number, count = 3): PlantName[] {
  const names = Object.keys(PLANTS) as PlantName[];
  return Array.from({ length: count }, (_, i) => names[(seed * count + i) % names.length] as PlantName);
}

type Item = Record<string, unknown>;

/** A string attribute in either form: the document client's, or marshalled (`{ S: … }`). */
function textOf(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  const marshalled = (value as { S?: unknown } | undefined)?.S;
  return typeof marshalled === 'string' ? marshalled : undefined;
}

/**
 * The event-log plants, as middleware on the part's DynamoDB client: `drop-event:<type>` answers the
 * PutItem of an event of that type as done without sending it; `event-twice` sends a lead.updated
 * event, then a copy of it under a new id (its envelope's id too), as a consumer that derived one
 * change's event twice would.
 */
export function plantEventWrites<I extends object, O extends object>(
  client: { middlewareStack: MiddlewareStack<I, O> },
  plant: PlantName,
  report: (line: string) => void,
): void {
  const dropped = plant.startsWith('drop-event:') ? plant.slice('drop-event:'.length) : undefined;
  if (!dropped && plant !== 'event-twice') return;
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const input = args.input as { Item?: Item };
      const item = input.Item;
      // The document client's command runs as PutItem; its item is in the document form here (the
      // initialize step), or marshalled by a middleware that ran first.
      const isPut = context.commandName === 'PutItemCommand' || context.commandName === 'PutCommand';
      const isEvent = isPut && textOf(item?.__edb_e__) === 'event';
      if (!isEvent || !item) return next(args);
      if (dropped && textOf(item.type) === dropped) {
        report(`PLANTED LOSS: ${dropped} event ${String(item.id)} not written`);
        return { output: { $metadata: {} }, response: {} } as Awaited<ReturnType<typeof next>>;
      }
      const result = await next(args);
      if (plant === 'event-twice' && textOf(item.type) === 'lead.updated') {
        const oldId = textOf(item.id) ?? '';
        const id = randomUUID();
        // Every attribute that carries the id (the id, the keys, the envelope) carries the new one.
        const copy = JSON.parse(JSON.stringify(item).replaceAll(oldId, id)) as Item;
        report(`PLANTED DUPLICATE: lead.updated ${oldId} written again as ${id}`);
        await next({ ...args, input: { ...input, Item: copy } as typeof args.input });
      }
      return result;
    },
    { step: 'initialize', priority: 'high', name: 'soakPlantedEventWrites' },
  );
}

/** `ack-scoring` / `ack-enrichment`: the AI worker's handler, acknowledging that kind unrun. */
export function plantAiAcks<R>(
  handler: (event: SQSEvent) => Promise<R>,
  plant: PlantName,
  report: (line: string) => void,
): (event: SQSEvent) => Promise<R> {
  const skipped = plant === 'ack-scoring' ? 'score' : plant === 'ack-enrichment' ? 'enrich' : undefined;
  if (!skipped) return handler;
  return async (event) => {
    const kept = event.Records.filter((record) => {
      const type = (JSON.parse(record.body) as { type?: string }).type;
      if (type !== skipped) return true;
      report(`PLANTED LOSS: ${type} message ${record.messageId} acknowledged unrun`);
      return false;
    });
    return handler({ Records: kept });
  };
}

/** `drop-owner-email`: the email port, dropping every Owner email about an Inquiry. */
export function plantEmailDrop<E extends { subject: string }>(
  port: { send(email: E): Promise<void> },
  report: (line: string) => void,
): { send(email: E): Promise<void> } {
  return {
    send: async (email) => {
      if (/^New (inquiry|registration) from /.test(email.subject)) {
        report(`PLANTED LOSS: Owner email "${email.subject}" dropped`);
        return;
      }
      await port.send(email);
    },
  };
}

/**
 * `webhook-twice-new-id`: every webhook POST to a healthy receiver is sent again under a new
 * webhook-id, signed with the endpoint's secret (as a sender that took one delivery for two would).
 * Watches undici's `undici:request:create` channel, which the delivery's sender publishes on.
 */
export async function plantWebhookTwice(report: (line: string) => void): Promise<void> {
  const { subscribe } = await import('node:diagnostics_channel');
  const { Webhook } = await import('standardwebhooks');
  const { getTenantBySlug } = await import('../../functions/data/tenants.ts');
  const { listLiveEndpoints } = await import('../../functions/data/webhooks.ts');
  subscribe('undici:request:create', (message) => {
    const { request } = message as { request: { origin: string; path: string; body: unknown } };
    if (!request.path.startsWith('/healthy/') || request.body === undefined || request.body === null) return;
    const body = Buffer.isBuffer(request.body) ? request.body.toString('utf8') : String(request.body);
    const url = `${request.origin}${request.path}`;
    void (async () => {
      const slug = String((JSON.parse(body) as { tenant?: { slug?: string } }).tenant?.slug ?? '');
      const tenant = await getTenantBySlug(slug);
      const endpoint = tenant
        ? (await listLiveEndpoints(tenant.tenantId)).find((e) => e.url === url)
        : undefined;
      if (!endpoint) return;
      const id = `msg_${randomUUID()}`;
      const now = new Date();
      await fetch(url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'webhook-id': id,
          'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
          'webhook-signature': new Webhook(endpoint.secret).sign(id, now, body),
        },
        body,
      });
      report(`PLANTED DUPLICATE: a delivery to ${url} sent again as ${id}`);
    })().catch((error: unknown) => report(`plant webhook-twice-new-id: ${String(error)}`));
  });
}
