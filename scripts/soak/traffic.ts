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
import { expectImportReady, expectLeadChange, expectListingChange, type View } from './expected.ts';
import type { Ledger, TenantLedger } from './ledger.ts';

/**
 * The changes each Tenant makes once before its seeded mix: a new contact (its Lead, Inquiry,
 * scoring and Owner email), a stage move, a listing that asks for enrichment and one that does not
 * (created live, with a Place), a photo import, a price change, an Activity completed, a hand-over
 * to the other Agent, a notes edit and a website inquiry.
 */
const COVERAGE = [
  'ingest-new',
  'stage-move',
  'property-create',
  'property-create',
  'photo-import',
  'property-price',
  'activity-create',
  'activity-complete',
  'lead-reassign',
  'lead-edit',
  'site-inquiry',
] as const;

/** Lead stages the driver moves through, one step at a time (never to a terminal one). */
const STAGES = ['new', 'contacted', 'qualified', 'negotiating'] as const;

export interface TrafficTenant {
  ledger: TenantLedger;
  key: string;
  siteKey: string;
  placeCodes: readonly string[];
  /** The Tenant's Agents: a Lead may be handed from one to another. */
  agentIds: readonly string[];
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
  /**
   * Listings the driver changes. A listing created with AI enrichment is left as created: its one
   * enrichment run then writes its one property.updated, with no driver change racing it (traffic
   * shaped so that the ledger can tell what follows).
   */
  const liveProperties = () =>
    Object.entries(ledger.properties).filter(([id, p]) => !p.archived && !ledger.enriched.includes(id));
  const openActivities: string[] = [];
  let idempotency = 0;
  const nextKey = () => {
    idempotency += 1;
    return `${ledger.slug}-${idempotency}-${Math.floor(random() * 1e9)}`;
  };

  /** The Leads and listings as the driver last saw them answered (expected.ts judges changes on them). */
  const leadViews: Record<string, View> = {};
  const listingViews: Record<string, View> = {};
  /** An answered Lead: the events its change calls for, and the view kept. */
  const sawLead = (lead: View & { id: string }, because: string) => {
    leadViews[lead.id] = expectLeadChange(ledger, lead.id, leadViews[lead.id], lead, because);
  };
  const sawListing = (listing: View & { id: string }, because: string) => {
    listingViews[listing.id] = expectListingChange(
      ledger,
      listing.id,
      listingViews[listing.id],
      listing,
      because,
    );
  };
  /** A new Inquiry of `leadId`, answered: it is scored once, and its Lead's Owner (if any) emailed once. */
  const sawInquiry = (inquiryId: string, leadId: string, because: string) => {
    if (ledger.inquiries.includes(inquiryId)) return;
    ledger.inquiries.push(inquiryId);
    ledger.expectedEvents.push({ type: 'inquiry.created', subjectId: inquiryId, key: '', because });
    ledger.scoringRuns[leadId] = (ledger.scoringRuns[leadId] ?? 0) + 1;
    ledger.expectedEvents.push({
      type: 'lead.scored',
      subjectId: leadId,
      key: '',
      because: `${because} (scoring)`,
    });
    if (leadViews[leadId]?.assigned_agent_id)
      ledger.ownerEmails[leadId] = (ledger.ownerEmails[leadId] ?? 0) + 1;
  };
  /** A Lead read back after a change whose answer has no body (an archive, a website Inquiry). */
  const readLead = async (id: string, because: string) => {
    const answer = await request(options, 'lead-read', 'GET', `/v1/leads/${id}`, { key: tenant.key });
    if (answer?.status === 200 && answer.body.id) sawLead(answer.body as View & { id: string }, because);
    return answer;
  };

  const recordIngest = (answer: Answer | undefined, person: { email: string; phone: string }) => {
    if (!answer || (answer.status !== 200 && answer.status !== 201)) return undefined;
    const lead = answer.body.lead as (View & { id: string; status: string }) | undefined;
    if (!lead) return undefined;
    ledger.leads[lead.id] ??= {
      email: person.email,
      phone: person.phone,
      statusMoves: 0,
      status: lead.status,
      archived: false,
    };
    sawLead(lead, 'ingest');
    const inquiryId = answer.body.inquiry_id;
    if (typeof inquiryId === 'string') sawInquiry(inquiryId, lead.id, 'ingest');
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
        const answer = await request(options, 'lead-edit', 'PATCH', `/v1/leads/${found[0]}`, {
          key: tenant.key,
          body: { notes: `Called back ${Math.floor(random() * 1000)}` },
        });
        if (answer?.status === 200 && answer.body.id)
          sawLead(answer.body as View & { id: string }, 'lead-edit');
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
        if (answer?.status === 200 && answer.body.id)
          sawLead(answer.body as View & { id: string }, 'stage-move');
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
        if (answer && answer.status < 300) {
          found[1].archived = true;
          await readLead(found[0], 'lead-archive');
        }
      },
    ],
    [
      'lead-reassign',
      3,
      async () => {
        const found = pick(random, activeLeads());
        if (!found) return;
        const owner = leadViews[found[0]]?.assigned_agent_id;
        const next = pick(
          random,
          tenant.agentIds.filter((id) => id !== owner),
        );
        if (!next) return;
        const answer = await request(options, 'lead-reassign', 'PATCH', `/v1/leads/${found[0]}`, {
          key: tenant.key,
          body: { assigned_agent_id: next },
        });
        if (answer?.status === 200 && answer.body.id)
          sawLead(answer.body as View & { id: string }, 'lead-reassign');
      },
    ],
    [
      'activity-create',
      4,
      async () => {
        const found = pick(random, activeLeads());
        if (!found) return;
        const answer = await request(options, 'activity-create', 'POST', `/v1/leads/${found[0]}/activities`, {
          key: tenant.key,
          body: { kind: 'call', title: `Soak call ${Math.floor(random() * 1000)}` },
        });
        if (answer?.status === 201 && answer.body.id) openActivities.push(answer.body.id);
      },
    ],
    [
      'activity-complete',
      3,
      async () => {
        const id = pick(random, openActivities);
        if (!id) return;
        const answer = await request(options, 'activity-complete', 'PATCH', `/v1/activities/${id}`, {
          key: tenant.key,
          body: { completed: true },
        });
        if (answer?.status === 200 && answer.body.completed === true) {
          openActivities.splice(openActivities.indexOf(id), 1);
          ledger.expectedEvents.push({
            type: 'activity.completed',
            subjectId: id,
            key: '',
            because: 'activity-complete',
          });
        }
      },
    ],
    [
      'property-create',
      8,
      async () => {
        const price = 100_000 + Math.floor(random() * 900) * 1000;
        // A Tenant's first listing asks for enrichment and its second does not, then three in ten:
        // every run enriches some, and has listings the driver may change.
        const made = Object.keys(ledger.properties).length;
        const enrich = made === 0 || (made > 1 && random() < 0.3);
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
            ai_enrichment: enrich,
          },
        });
        if (answer?.status === 201 && answer.body.id) {
          const id = answer.body.id;
          ledger.properties[id] ??= { priceChanges: 0, price, archived: false };
          sawListing(answer.body as View & { id: string }, 'property-create');
          if (enrich && !ledger.enriched.includes(id)) {
            // Its one enrichment run: the listing's texts and status change once.
            ledger.enriched.push(id);
            ledger.expectedEvents.push({
              type: 'property.updated',
              subjectId: id,
              key: 'includes:enrichment_status',
              because: 'property-create (enrichment)',
            });
          }
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
        if (answer?.status === 200 && answer.body.id)
          sawListing(answer.body as View & { id: string }, 'property-price');
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
        if (answer && answer.status < 300) {
          found[1].archived = true;
          const read = await request(options, 'property-read', 'GET', `/v1/properties/${found[0]}`, {
            key: tenant.key,
          });
          if (read?.status === 200 && read.body.id)
            sawListing(read.body as View & { id: string }, 'property-archive');
        }
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
        // 202: a new import, which must reach ready and change the gallery once; 200 names one the
        // listing already has (the same URL), which changes nothing again.
        if (answer?.status === 202 && answer.body.id) {
          ledger.imports.push({ propertyId: found[0], importId: answer.body.id });
          expectImportReady(ledger, found[0], 'includes:images');
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
        if (answer?.status !== 201 || !answer.body.id) return;
        // The answer names the Inquiry; which Lead it joined (or made) is read back, as an integrator would.
        const inquiry = await request(options, 'inquiry-read', 'GET', `/v1/inquiries/${answer.body.id}`, {
          key: tenant.key,
        });
        const leadId = inquiry?.body.lead_id;
        if (typeof leadId !== 'string') return;
        const lead = await readLead(leadId, 'site-inquiry');
        if (lead?.status === 200 && !known) {
          ledger.leads[leadId] ??= {
            email,
            phone: String(lead.body.phone ?? ''),
            statusMoves: 0,
            status: String(lead.body.status),
            archived: false,
          };
        }
        sawInquiry(answer.body.id, leadId, 'site-inquiry');
      },
    ],
  ];
  // Every Tenant first makes each kind of change once (in an order where each finds what it needs),
  // so that even a short run has something of every kind to lose: a planted fault always has work
  // to drop. Then the seeded mix.
  const byName = new Map(operations.map(([name, , run]) => [name, run]));
  for (const name of COVERAGE) {
    if (Date.now() >= options.until) break;
    await byName.get(name)?.();
    if (options.pauseMs > 0) await sleep(options.pauseMs);
  }
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
