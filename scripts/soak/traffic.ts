/**
 * The soak's seeded, bounded traffic and the ledger it keeps: per Tenant, one integrator at a time
 * (so the ledger knows each change's outcome) ingesting Leads (new contacts, duplicates, concurrent
 * duplicates, idempotent retries), editing and archiving Leads, moving stages, writing, repricing and
 * archiving listings, importing photos from the local file server, and a website searching and
 * sending inquiries with the publishable key.
 *
 * The API is killed now and then: a request without an answer is sent again as it was (same
 * Idempotency-Key), until it is answered or the traffic's end plus a grace; then it counts as
 * unanswered and its outcome stays out of the ledger.
 */
import { TURNSTILE_DUMMY_TOKEN } from '../../functions/kernel/ports/turnstile.ts';
import type { Ledger, TenantLedger } from './ledger.ts';

/** Lead stages the driver moves through, one step at a time (never to a terminal one). */
const STAGES = ['new', 'contacted', 'qualified', 'negotiating'] as const;

export interface TrafficTenant {
  ledger: TenantLedger;
  key: string;
  siteKey: string;
  placeCodes: readonly string[];
}

export interface TrafficOptions {
  apiUrl: () => string;
  photoUrl: (n: number) => string;
  random: () => number;
  ledger: Ledger;
  /** Requests are no longer sent after this (ms since the epoch). */
  until: number;
  /** An unanswered request is given up after this. */
  giveUpAt: () => number;
  /** A Tenant's think time between two of its requests (0: back to back). */
  pauseMs: number;
}

interface Answer {
  status: number;
  text: string;
  body: Record<string, unknown> & { id?: string };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** One request, sent again while the API is down or a same-key request still runs. */
async function request(
  options: TrafficOptions,
  op: string,
  method: string,
  path: string,
  init: { key?: string; body?: unknown; idempotencyKey?: string } = {},
): Promise<Answer | undefined> {
  const headers: Record<string, string> = {};
  if (init.key) headers.authorization = `Bearer ${init.key}`;
  if (init.body !== undefined) headers['content-type'] = 'application/json';
  if (init.idempotencyKey) headers['idempotency-key'] = init.idempotencyKey;
  for (;;) {
    if (Date.now() > options.giveUpAt()) {
      options.ledger.unanswered += 1;
      return undefined;
    }
    let res: Response;
    try {
      res = await fetch(options.apiUrl() + path, {
        method,
        headers,
        ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
        // Generous: on a loaded machine a request may wait long for DynamoDB Local; then it is sent again.
        signal: AbortSignal.timeout(90_000),
      });
    } catch {
      // Connection refused or reset: the API is being restarted.
      options.ledger.retries.down = (options.ledger.retries.down ?? 0) + 1;
      await sleep(250);
      continue;
    }
    const text = await res.text();
    if (res.status === 409 && init.idempotencyKey) {
      // The same key's first request died with the API: its lock lapses, then this one runs.
      options.ledger.retries[`409 ${op}`] = (options.ledger.retries[`409 ${op}`] ?? 0) + 1;
      await sleep(1_000);
      continue;
    }
    if (res.status === 429) {
      options.ledger.retries[`429 ${op}`] = (options.ledger.retries[`429 ${op}`] ?? 0) + 1;
      await sleep(1_000 * Number(res.headers.get('retry-after') ?? 1));
      continue;
    }
    options.ledger.requests[op] = (options.ledger.requests[op] ?? 0) + 1;
    if (res.status >= 500) options.ledger.serverErrors.push({ op, status: res.status, body: text });
    let body: Answer['body'] = {};
    try {
      body = text ? (JSON.parse(text) as Answer['body']) : {};
    } catch {
      body = {};
    }
    return { status: res.status, text, body };
  }
}

const pick = <T>(random: () => number, items: readonly T[]): T | undefined =>
  items.length ? items[Math.floor(random() * items.length)] : undefined;

/** One Tenant's integrator and website, one operation at a time until `until`. */
export async function runTenantTraffic(options: TrafficOptions, tenant: TrafficTenant): Promise<void> {
  const { random } = options;
  const ledger = tenant.ledger;
  let contacts = 0;
  const newContact = () => {
    contacts += 1;
    const n = contacts;
    const phoneDigits = String(10_000_000 + Math.floor(random() * 89_999_999));
    return {
      name: `Soak Contact ${n}`,
      email: `c${n}.${ledger.slug}@soak.example`,
      phone: `+346${phoneDigits.slice(0, 8)}`,
    };
  };
  const activeLeads = () => Object.entries(ledger.leads).filter(([, l]) => !l.archived);
  const liveProperties = () => Object.entries(ledger.properties).filter(([, p]) => !p.archived);
  let idempotency = 0;
  const nextKey = () => {
    idempotency += 1;
    return `${ledger.slug}-${idempotency}-${Math.floor(random() * 1e9)}`;
  };

  const recordIngest = (answer: Answer | undefined, person: { email: string; phone: string }) => {
    if (!answer || (answer.status !== 200 && answer.status !== 201)) return undefined;
    const lead = answer.body.lead as { id: string; status: string } | undefined;
    if (!lead) return undefined;
    ledger.leads[lead.id] ??= {
      email: person.email,
      phone: person.phone,
      statusMoves: 0,
      status: lead.status,
      archived: false,
    };
    const inquiryId = answer.body.inquiry_id;
    if (typeof inquiryId === 'string' && !ledger.inquiries.includes(inquiryId))
      ledger.inquiries.push(inquiryId);
    return lead.id;
  };
  const ingestBody = (person: { name: string; email: string; phone: string }) => {
    const listing = pick(random, liveProperties());
    return {
      source: 'soak',
      type: 'inquiry',
      person,
      message: 'Is it still available?',
      ...(listing && random() < 0.5 ? { property_id: listing[0] } : {}),
    };
  };

  const operations: [string, number, () => Promise<void>][] = [
    [
      'ingest-new',
      22,
      async () => {
        const person = newContact();
        const body = ingestBody(person);
        const idempotencyKey = nextKey();
        const first = await request(options, 'ingest', 'POST', '/v1/leads:ingest', {
          key: tenant.key,
          body,
          idempotencyKey,
        });
        recordIngest(first, person);
        if (first && random() < 0.35) {
          const second = await request(options, 'ingest-replay', 'POST', '/v1/leads:ingest', {
            key: tenant.key,
            body,
            idempotencyKey,
          });
          if (second) {
            ledger.replays.push({
              idempotencyKey,
              first: { status: first.status, body: first.text },
              second: { status: second.status, body: second.text },
            });
          }
        }
      },
    ],
    [
      'ingest-duplicate',
      12,
      async () => {
        const found = pick(random, activeLeads());
        if (!found) return;
        const [, lead] = found;
        const draw = random();
        const person = {
          name: 'Soak Contact again',
          ...(draw < 0.67 ? { email: lead.email } : {}),
          ...(draw > 0.33 ? { phone: lead.phone } : {}),
        };
        const answer = await request(options, 'ingest', 'POST', '/v1/leads:ingest', {
          key: tenant.key,
          body: { source: 'soak', type: 'inquiry', person, message: 'Me again' },
          idempotencyKey: nextKey(),
        });
        recordIngest(answer, lead);
      },
    ],
    [
      'ingest-concurrent',
      5,
      async () => {
        const person = newContact();
        const body = ingestBody(person);
        const answers = await Promise.all(
          [0, 1, 2].map(() =>
            request(options, 'ingest', 'POST', '/v1/leads:ingest', {
              key: tenant.key,
              body,
              idempotencyKey: nextKey(),
            }),
          ),
        );
        const leadIds = answers
          .map((a) => recordIngest(a, person))
          .filter((id): id is string => id !== undefined);
        ledger.concurrent.push({ email: person.email, leadIds });
      },
    ],
    [
      'lead-edit',
      8,
      async () => {
        const found = pick(random, activeLeads());
        if (!found) return;
        await request(options, 'lead-edit', 'PATCH', `/v1/leads/${found[0]}`, {
          key: tenant.key,
          body: { notes: `Called back ${Math.floor(random() * 1000)}` },
        });
      },
    ],
    [
      'stage-move',
      10,
      async () => {
        const found = pick(
          random,
          activeLeads().filter(([, l]) => l.status !== 'negotiating'),
        );
        if (!found) return;
        const [id, lead] = found;
        const next = STAGES[STAGES.indexOf(lead.status as (typeof STAGES)[number]) + 1];
        if (!next) return;
        const answer = await request(options, 'stage-move', 'PATCH', `/v1/leads/${id}`, {
          key: tenant.key,
          body: { status: next },
        });
        if (answer?.status === 200 && answer.body.status === next && lead.status !== next) {
          lead.status = next;
          lead.statusMoves += 1;
        }
      },
    ],
    [
      'lead-archive',
      3,
      async () => {
        const found = pick(random, activeLeads());
        if (!found) return;
        const answer = await request(options, 'lead-archive', 'DELETE', `/v1/leads/${found[0]}`, {
          key: tenant.key,
        });
        if (answer && answer.status < 300) found[1].archived = true;
      },
    ],
    [
      'property-create',
      8,
      async () => {
        const price = 100_000 + Math.floor(random() * 900) * 1000;
        const answer = await request(options, 'property-create', 'POST', '/v1/properties', {
          key: tenant.key,
          idempotencyKey: nextKey(),
          body: {
            title: `Soak flat ${Math.floor(random() * 1e6)}`,
            listing_type: 'sale',
            price: String(price),
            currency: 'EUR',
            property_type: 'apartment',
            bedrooms: 1 + Math.floor(random() * 4),
            place_code: pick(random, tenant.placeCodes),
          },
        });
        if (answer?.status === 201 && answer.body.id) {
          ledger.properties[answer.body.id] ??= { priceChanges: 0, price, archived: false };
        }
      },
    ],
    [
      'property-price',
      8,
      async () => {
        const found = pick(random, liveProperties());
        if (!found) return;
        const [id, property] = found;
        const price = property.price + 1000 * (1 + Math.floor(random() * 20));
        const answer = await request(options, 'property-price', 'PATCH', `/v1/properties/${id}`, {
          key: tenant.key,
          body: { price: String(price) },
        });
        if (answer?.status === 200 && Number(answer.body.price) === price && property.price !== price) {
          property.price = price;
          property.priceChanges += 1;
        }
      },
    ],
    [
      'property-archive',
      2,
      async () => {
        const found = pick(random, liveProperties());
        if (!found) return;
        const answer = await request(options, 'property-archive', 'DELETE', `/v1/properties/${found[0]}`, {
          key: tenant.key,
        });
        if (answer && answer.status < 300) found[1].archived = true;
      },
    ],
    [
      'photo-import',
      5,
      async () => {
        const found = pick(random, liveProperties());
        if (!found) return;
        const answer = await request(
          options,
          'photo-import',
          'POST',
          `/v1/properties/${found[0]}/images:import`,
          {
            key: tenant.key,
            body: { url: options.photoUrl(Math.floor(random() * 1e6)), is_primary: false },
          },
        );
        if (answer && answer.status < 300 && answer.body.id) {
          ledger.imports.push({ propertyId: found[0], importId: answer.body.id });
        }
      },
    ],
    [
      'site-search',
      8,
      async () => {
        await request(options, 'site-search', 'GET', `/v1/site/properties?key=${tenant.siteKey}&limit=5`);
      },
    ],
    [
      'site-inquiry',
      5,
      async () => {
        const known = random() < 0.5 ? pick(random, activeLeads()) : undefined;
        const email = known ? known[1].email : newContact().email;
        const listing = pick(random, liveProperties());
        const answer = await request(
          options,
          'site-inquiry',
          'POST',
          `/v1/site/leads?key=${tenant.siteKey}`,
          {
            body: {
              name: 'Website Visitor',
              email,
              message: 'Please call me',
              turnstile: TURNSTILE_DUMMY_TOKEN,
              ...(listing ? { property_id: listing[0] } : {}),
            },
          },
        );
        if (answer?.status === 201 && answer.body.id) ledger.inquiries.push(answer.body.id);
      },
    ],
  ];
  const total = operations.reduce((sum, [, weight]) => sum + weight, 0);
  while (Date.now() < options.until) {
    let draw = random() * total;
    const operation =
      operations.find(([, weight]) => {
        draw -= weight;
        return draw < 0;
      }) ?? operations[0];
    await operation?.[2]();
    if (options.pauseMs > 0) await sleep(options.pauseMs);
  }
}
