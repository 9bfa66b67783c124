/**
 * The leads section of the bench (issues 4 and 26): one Tenant with 20,000 Leads (`--leads N`), the
 * oldest `--archived M` of them archived (archived before the live ones were last touched, as in a
 * mature Tenant), then what an ingest, a status change and a list page (unfiltered, by status,
 * owner, tier, the selective triple, and q: common, rare, a typo, a country code) cost per
 * request, in-process and over the local HTTP server.
 *
 * Seeding writes what the service writes: each Lead goes through `withDerivedKeys`, its search
 * tokens through `tokensOf` and its email and phone claims through `leadClaimOf` (the builders
 * `writeLead` uses), and the entities' own key templates turn them into items (entity-items.ts: the
 * items `.put(...).params()` builds, at a twentieth of its cost). Only the transport differs:
 * BatchWriteItem, 25 items a request, 8 requests in flight, instead of one transaction per Lead.
 *
 * Where seeding time goes (2,000 Leads, 1,200 archived: 28,856 items, 14.4 a Lead of which 11.6
 * search tokens; 2 shared cores at load 10–20, nice 19): building items with put params cost
 * ~18 ms a Lead in node (now < 1 ms); DynamoDB Local takes ~1,000 items/s once its JIT is warm
 * (50,000 Leads in 12 minutes, 80,000 in 18, at load 3–10) and 100–600 items/s, depending on the
 * load, while it warms up; 8 requests in flight keep it busier than 4. Its default heap (a quarter
 * of RAM) is ample: GC was not the limit.
 *
 * Like dynamo-costs.ts, every functions/ module that does I/O is imported dynamically: main.ts sets
 * the environment first.
 */
import { randomUUID } from 'node:crypto';
import { BatchWriteCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { EntityItem } from 'electrodb';
import type { Lead } from '../../functions/data/entities/lead.ts';
import { type OperationId, routeFor } from '../../functions/routes.ts';
import type { CostResult } from './dynamo-costs.ts';
import { itemBuilder } from './entity-items.ts';
import { BENCH_TABLE } from './env.ts';
import type { BenchRequest } from './events.ts';
import {
  describePopulation,
  itemSize,
  type LeadPopulation,
  leadAt,
  RARE_SURNAMES,
  SizeTally,
} from './lead-data.ts';
import { startServerProcess } from './load.ts';
import { benchDocumentClient } from './sdk.ts';
import { median, round } from './stats.ts';

type LeadRecord = EntityItem<typeof Lead>;
type Log = (line: string) => void;

/** A filtered page may cost at most this many times the unfiltered page's read units (issue 4). */
export const FILTERED_PAGE_RATIO_TARGET = 5;

/**
 * BatchWriteItem's limit, and the requests kept in flight while seeding: DynamoDB Local parses one
 * request while it stores another (8 wrote ~1.5× the items a second 4 did on 2 shared cores).
 */
const BATCH_SIZE = 25;
const IN_FLIGHT = 8;

/** The listing-list row's Tenant: archived listings as many as archived Leads, up to this; then live ones. */
const LISTINGS_ARCHIVED_MAX = 5000;
const LIVE_LISTINGS = 60;

const AGENT_NAMES = [
  'Lucía Fernández',
  'Jörg Weiß',
  'Anaïs Lefèvre',
  'Tomás Ibáñez',
  'Emma Johansson',
] as const;

export interface SeedFigures {
  leads: number;
  /** Of `leads`, the oldest this many archived (the population's own ~2% aside). */
  archivedFirst: number;
  /** Listings of the same Tenant for the listing-list row: archived ones before the live ones. */
  listings: { archived: number; live: number };
  agents: number;
  seconds: number;
  items: { leads: number; searchTokens: number; claims: number; total: number };
  batchWriteRequests: number;
  inFlight: number;
  /** Requests re-sent for UnprocessedItems (DynamoDB Local rarely returns any). */
  unprocessedRetries: number;
  itemsPerSecond: number;
  /** Item sizes by DynamoDB's rules (approximate): what 1 KB write and 4 KB read units are counted in. */
  itemSizes: Record<'lead' | 'searchToken' | 'claim', ReturnType<SizeTally['summary']>>;
  population: LeadPopulation;
}

interface IngestTarget {
  name: string;
  email: string;
}

export interface LeadsFixture {
  tenantId: string;
  apiKey: string;
  agentIds: string[];
  seed: SeedFigures;
  /** Active, owned Leads with an email and an attribution: an ingest of that email changes nothing. */
  unchangedTargets: IngestTarget[];
  /** The same without a phone: an ingest that brings one rewrites the Lead and its tokens. */
  phoneFillTargets: IngestTarget[];
  /** Live Leads in status new: each moved to contacted once (a status change). */
  statusChangeTargets: string[];
}

/** Sends `items` with BatchWriteItem, re-sending what comes back unprocessed. */
async function batchWrite(client: DynamoDBDocumentClient, items: Record<string, unknown>[]): Promise<number> {
  let pending: { PutRequest: { Item: Record<string, unknown> } }[] = items.map((Item) => ({
    PutRequest: { Item },
  }));
  let retries = 0;
  for (let attempt = 0; pending.length > 0; attempt++) {
    if (attempt > 0) {
      retries += 1;
      if (attempt > 10) throw new Error(`BatchWriteItem: ${pending.length} items still unprocessed`);
      await new Promise((r) => setTimeout(r, 20 * attempt));
    }
    const { UnprocessedItems } = await client.send(
      new BatchWriteCommand({ RequestItems: { [BENCH_TABLE]: pending } }),
    );
    pending = (UnprocessedItems?.[BENCH_TABLE] ?? []) as typeof pending;
  }
  return retries;
}

/**
 * A Tenant with an all-scopes key, five Agents and `count` Leads (lead-data.ts), written with
 * BatchWriteItem from the service's own item builders. Also picks the Leads the dedupe ingests use
 * (`targets` of each kind).
 */
export async function seedLeadsTenant(
  count: number,
  targets: number,
  dynamoEndpoint: string,
  log: Log,
  archivedFirst = 0,
): Promise<LeadsFixture> {
  const client = benchDocumentClient(dynamoEndpoint);
  const { createTenantFromAdmin } = await import('../../functions/services/tenants.ts');
  const { issueApiKey } = await import('../../functions/services/api-keys.ts');
  const { createAgent } = await import('../../functions/services/agents.ts');
  const { SCOPES } = await import('../../functions/domain/scopes.ts');
  const { leadClaimOf, withDerivedKeys } = await import('../../functions/data/leads.ts');
  const { tokensOf } = await import('../../functions/data/lead-search.ts');
  const { Lead: LeadEntity } = await import('../../functions/data/entities/lead.ts');
  const { LeadSearchToken } = await import('../../functions/data/entities/lead-search-token.ts');
  const { UniqueClaim } = await import('../../functions/data/entities/unique-claim.ts');

  const slug = `bench-leads-${randomUUID().slice(0, 8)}`;
  const tenant = await createTenantFromAdmin({ slug, name: 'Bench Leads Realty', languages: ['en', 'es'] });
  const { secret } = await issueApiKey({ tenantId: tenant.tenantId, name: 'bench', scopes: [...SCOPES] });
  const agentIds: string[] = [];
  for (const [n, name] of AGENT_NAMES.entries()) {
    const agent = await createAgent({
      tenantId: tenant.tenantId,
      name,
      email: `agent${n + 1}@${slug}.example`,
    });
    agentIds.push(agent.id);
  }

  const { Listing } = await import('../../functions/data/entities/listing.ts');
  const { listingListOf } = await import('../../functions/data/listings.ts');
  const leadItem = itemBuilder<LeadRecord>(LeadEntity);
  const tokenItem = itemBuilder<ReturnType<typeof tokensOf>[number]>(LeadSearchToken);
  const claimItem = itemBuilder<ReturnType<typeof leadClaimOf>>(UniqueClaim);
  const options = { tenantId: tenant.tenantId, count, agentIds, now: new Date(Date.now() - 60_000) };
  const counts = { leads: 0, searchTokens: 0, claims: 0 };
  const seeded: LeadRecord[] = [];
  const unchangedTargets: IngestTarget[] = [];
  const statusChangeTargets: string[] = [];
  const phoneFillTargets: IngestTarget[] = [];
  const rare = new Set(Object.values(RARE_SURNAMES).map((s) => s.toLowerCase()));
  let requests = 0;
  let retries = 0;
  const inFlight = new Set<Promise<void>>();
  let buffer: Record<string, unknown>[] = [];
  const sizes = { lead: new SizeTally(), searchToken: new SizeTally(), claim: new SizeTally() };
  const add = (item: Record<string, unknown>, tally: SizeTally) => {
    tally.add(itemSize(item));
    buffer.push(item);
  };
  // A failed request is kept here and rethrown by the next flush (never an unhandled rejection).
  let failure: unknown;
  const flush = async (batch: Record<string, unknown>[]) => {
    while (inFlight.size >= IN_FLIGHT) await Promise.race(inFlight);
    if (failure) throw failure;
    requests += 1;
    const tracked: Promise<void> = batchWrite(client, batch)
      .then((r) => {
        retries += r;
      })
      .catch((error: unknown) => {
        failure ??= error;
      })
      .finally(() => inFlight.delete(tracked));
    inFlight.add(tracked);
  };

  const started = performance.now();
  const every = Math.max(1000, Math.round(count / 10 / 1000) * 1000);
  for (let i = 0; i < count; i++) {
    const generated = leadAt(i, options);
    const lead = withDerivedKeys(i < archivedFirst ? { ...generated, isActive: false } : generated);
    const tokens = tokensOf(lead);
    const claims = [
      ...(lead.email ? [{ kind: 'lead-email' as const, value: lead.email }] : []),
      ...(lead.phone ? [{ kind: 'lead-phone' as const, value: lead.phone }] : []),
    ].map((c) => leadClaimOf(lead, c));
    add(leadItem(lead), sizes.lead);
    for (const token of tokens) add(tokenItem(token), sizes.searchToken);
    for (const claim of claims) add(claimItem(claim), sizes.claim);
    counts.leads += 1;
    counts.searchTokens += tokens.length;
    counts.claims += claims.length;
    seeded.push(lead);
    while (buffer.length >= BATCH_SIZE) {
      await flush(buffer.slice(0, BATCH_SIZE));
      buffer = buffer.slice(BATCH_SIZE);
    }

    const usable =
      lead.isActive &&
      lead.email &&
      lead.assignedAgentId &&
      lead.sourceDetail &&
      !lead.name.split(' ').some((w) => rare.has(w.toLowerCase()));
    if (lead.isActive && lead.status === 'new' && statusChangeTargets.length < targets) {
      statusChangeTargets.push(lead.id);
    }
    if (usable && lead.email) {
      const list = lead.phone ? unchangedTargets : phoneFillTargets;
      if (list.length < targets) list.push({ name: lead.name, email: lead.email });
    }
    if ((i + 1) % every === 0 || i + 1 === count) {
      const total = counts.leads + counts.searchTokens + counts.claims;
      const seconds = (performance.now() - started) / 1000;
      log(
        `  seeded ${i + 1}/${count} leads (${total.toLocaleString('en')} items, ${requests} BatchWriteItem) in ${seconds.toFixed(1)} s`,
      );
    }
  }
  // The listing-list row's listings: as many archived as Leads (up to LISTINGS_ARCHIVED_MAX), all
  // before the live ones in (updatedAt, id) order. A listing as a key's create stores it with no
  // optional field, and its slug claim; the archived ones as an archive leaves them.
  const listingItem = itemBuilder<EntityItem<typeof Listing>>(Listing);
  const listings = { archived: Math.min(archivedFirst, LISTINGS_ARCHIVED_MAX), live: LIVE_LISTINGS };
  const listingsFrom = Date.now() - 2 * 86_400_000;
  for (let n = 0; n < listings.archived + listings.live; n++) {
    const at = new Date(listingsFrom + n * 1000).toISOString();
    const id = randomUUID();
    const listing = {
      tenantId: tenant.tenantId,
      id,
      title: `Bench flat ${n}`,
      slug: `bench-flat-${n}-${id.slice(0, 8)}`,
      origin: 'api' as const,
      createdBy: 'bench',
      updatedBy: 'bench',
      createdAt: at,
      updatedAt: at,
      ...(n < listings.archived ? { archivedAt: at } : {}),
    };
    buffer.push(listingItem({ ...listing, listKey: listingListOf(listing) } as EntityItem<typeof Listing>));
    buffer.push(
      claimItem({
        scope: `t#${tenant.tenantId}`,
        kind: 'property-slug',
        value: listing.slug,
        ownerId: id,
        createdAt: at,
      }),
    );
    while (buffer.length >= BATCH_SIZE) {
      await flush(buffer.slice(0, BATCH_SIZE));
      buffer = buffer.slice(BATCH_SIZE);
    }
  }
  if (buffer.length) await flush(buffer);
  await Promise.all(inFlight);
  if (failure) throw failure;
  const seconds = (performance.now() - started) / 1000;
  if (
    unchangedTargets.length < targets ||
    phoneFillTargets.length < targets ||
    statusChangeTargets.length < targets
  ) {
    throw new Error(`Too few Leads to ingest onto: use more leads or fewer samples`);
  }

  const total = counts.leads + counts.searchTokens + counts.claims;
  return {
    tenantId: tenant.tenantId,
    apiKey: secret,
    agentIds,
    unchangedTargets,
    phoneFillTargets,
    statusChangeTargets,
    seed: {
      leads: count,
      archivedFirst,
      listings,
      agents: agentIds.length,
      seconds: round(seconds, 1),
      items: { ...counts, total },
      batchWriteRequests: requests,
      inFlight: IN_FLIGHT,
      unprocessedRetries: retries,
      itemsPerSecond: round(total / seconds, 0),
      itemSizes: {
        lead: sizes.lead.summary(),
        searchToken: sizes.searchToken.summary(),
        claim: sizes.claim.summary(),
      },
      population: describePopulation(seeded),
    },
  };
}

export type LeadRowKind = 'ingest' | 'edit' | 'unfiltered' | 'filtered';

/** Issue 26's bounds: a row's cost against them. */
interface RowTarget {
  rcuMax?: number;
  msMax?: number;
  /** Write units with the index entries the transaction writes (2 per item and per entry, ≤ 1 KB). */
  wcuMax?: number;
}

export interface LeadsRow {
  kind: LeadRowKind;
  /** The query string or what the ingest does, as printed. */
  label: string;
  /** List pages: the index partition the page reads (filters beyond it are filter expressions). */
  reads: string | null;
  cost: CostResult;
  /** Over the local HTTP server (scripts/local/server.ts in its own process), median ms. */
  httpMs: number | null;
  /** List pages: read units relative to the unfiltered page (target ≤ FILTERED_PAGE_RATIO_TARGET). */
  rcuRatio: number | null;
  ratioOk: boolean | null;
  /** Write units of the transaction items and the index entries they write (2 each, items ≤ 1 KB). */
  writeUnitsWithIndexes: number;
  /** Issue 26's bounds for this row, each with its verdict. */
  targets: { label: string; ok: boolean }[];
}

export interface LeadsSection {
  samples: number;
  targetRatio: number;
  seed: SeedFigures;
  /** The owner the `owner=` rows use, and the rare words the `q=` rows look for. */
  filters: { ownerAgentId: string; rareWord: string; rareWordBehindCommonPrefix: string };
  rows: LeadsRow[];
}

interface LeadCase {
  kind: LeadRowKind;
  label: string;
  /** What a list page reads (functions/data/leads.ts queryLeads, lead-search.ts searchLeadTokens). */
  reads?: string;
  operationId: OperationId;
  status: number;
  request: (i: number) => BenchRequest;
  target?: RowTarget;
}

/**
 * The rows: three ingests (a new contact, and two dedupes), a status change, and the list pages,
 * issue 26's among them: the first page with archived Leads before, the selective filter triple,
 * a zero-hit typo, and q = a country code; last, the first listing page with archived listings
 * before (a live page reads 51 listings, none of them archived).
 */
function leadCases(fixture: LeadsFixture, partitionOf: (q: string) => string): LeadCase[] {
  const run = randomUUID().slice(0, 6);
  const digits = String(Number.parseInt(run, 16) % 1000).padStart(3, '0');
  const owner = fixture.agentIds[0] ?? '';
  const target = (list: IngestTarget[], i: number) => list[i] as IngestTarget;
  const list = (
    label: string,
    query: Record<string, string>,
    reads: string,
    kind: LeadRowKind = 'filtered',
    target?: RowTarget,
  ): LeadCase => ({
    kind,
    label,
    reads,
    operationId: 'listLeads',
    status: 200,
    request: () => ({ query: { limit: '50', ...query } }),
    ...(target ? { target } : {}),
  });
  const bounded = { rcuMax: 50, msMax: 1000 };
  const archived = fixture.seed.archivedFirst;
  return [
    {
      kind: 'ingest',
      label: 'POST /v1/leads:ingest inquiry, new contact',
      operationId: 'ingestLead',
      status: 201,
      request: (i) => ({
        body: {
          source: 'idealista',
          type: 'inquiry',
          person: {
            name: `Núria Bench ${run} ${i}`,
            email: `nuria.bench.${run}.${i}@example.com`,
            phone: `+34 71${digits} ${String(i).padStart(4, '0')}`,
            locale: 'es',
          },
          message: '¿Sigue disponible? Me gustaría visitarla el sábado.',
        },
      }),
    },
    {
      kind: 'ingest',
      label: 'POST /v1/leads:ingest inquiry, dedupe (Inquiry only)',
      operationId: 'ingestLead',
      status: 200,
      request: (i) => ({
        body: {
          source: 'idealista',
          type: 'inquiry',
          person: {
            name: target(fixture.unchangedTargets, i).name,
            email: target(fixture.unchangedTargets, i).email,
          },
          message: 'Another question about the same flat.',
        },
      }),
    },
    {
      kind: 'ingest',
      label: 'POST /v1/leads:ingest inquiry, dedupe + new phone (Lead, tokens rewritten)',
      operationId: 'ingestLead',
      status: 200,
      request: (i) => ({
        body: {
          source: 'idealista',
          type: 'inquiry',
          person: {
            name: target(fixture.phoneFillTargets, i).name,
            email: target(fixture.phoneFillTargets, i).email,
            phone: `+34 72${digits} ${String(i).padStart(4, '0')}`,
          },
          message: 'Call me, please.',
        },
      }),
    },
    {
      kind: 'edit',
      label: 'PATCH /v1/leads/{id} status new → contacted',
      operationId: 'updateLead',
      status: 200,
      request: (i) => ({
        pathParameters: { lead_id: fixture.statusChangeTargets[i] ?? '' },
        body: { status: 'contacted' },
      }),
      target: { wcuMax: 20 },
    },
    list(
      archived
        ? `GET /v1/leads?limit=50 (first page, ${archived} archived before)`
        : 'GET /v1/leads?limit=50',
      {},
      'gsi1 t#<tenant>#leads',
      'unfiltered',
      { rcuMax: 10 },
    ),
    list('  …&status=qualified', { status: 'qualified' }, 'gsi2 t#<tenant>#leads#status#qualified'),
    list('  …&owner=<agent id>', { owner }, 'gsi3 t#<tenant>#leads#owner#<agent id>'),
    list('  …&owner=unassigned', { owner: 'unassigned' }, 'gsi3 t#<tenant>#leads#owner#unassigned'),
    list('  …&tier=hot', { tier: 'hot' }, 'gsi4 t#<tenant>#leads#tier#hot'),
    list(
      '  …&owner=unassigned&status=closed_won&tier=hot (selective triple)',
      { owner: 'unassigned', status: 'closed_won', tier: 'hot' },
      'gsi3 t#<tenant>#leads#owner#unassigned, bounded',
      'filtered',
      bounded,
    ),
    list('  …&q=mar (common prefix)', { q: 'mar' }, `LeadSearchToken ${partitionOf('mar')}`),
    list(
      '  …&q=garcx (zero-hit typo)',
      { q: 'garcx' },
      `LeadSearchToken ${partitionOf('garcx')}`,
      'filtered',
      bounded,
    ),
    list('  …&q=34 (a country code)', { q: '34' }, partitionOf('34'), 'filtered', bounded),
    ...[
      { word: RARE_SURNAMES.rare.toLowerCase(), what: 'rare word' },
      { word: RARE_SURNAMES.rareBehindCommonPrefix.toLowerCase(), what: 'rare word, common prefix' },
    ].map(({ word, what }) =>
      list(`  …&q=${word} (${what})`, { q: word }, `LeadSearchToken ${partitionOf(word)}`),
    ),
    {
      kind: 'unfiltered',
      label: `GET /v1/properties?limit=50 (first page, ${fixture.seed.listings.archived} archived listings before)`,
      reads: 'gsi1 t#<tenant>#properties',
      operationId: 'listProperties',
      status: 200,
      request: () => ({ query: { limit: '50' } }),
    },
  ];
}

/** The request as a URL and fetch options for the local server. */
function httpRequest(baseUrl: string, operationId: OperationId, apiKey: string, request: BenchRequest) {
  const route = routeFor(operationId);
  const params = request.pathParameters ?? {};
  const path = route.path.replace(/\{(\w+)\}/g, (_m, name: string) => encodeURIComponent(params[name] ?? ''));
  const query = new URLSearchParams(request.query ?? {}).toString();
  return {
    url: `${baseUrl}${path}${query ? `?${query}` : ''}`,
    init: {
      method: route.method,
      headers: {
        authorization: `Bearer ${apiKey}`,
        ...(request.body !== undefined ? { 'content-type': 'application/json' } : {}),
        ...request.headers,
      },
      ...(request.body !== undefined ? { body: JSON.stringify(request.body) } : {}),
    },
  };
}

/**
 * Each row: one warm-up and `samples` measured requests in-process (dynamo-costs.ts measureCase:
 * round trips, units, items read, handler time), then the same over HTTP with requests the
 * in-process run did not use (a new contact stays new; a dedupe target is used once).
 */
export async function measureLeads(
  fixture: LeadsFixture,
  samples: number,
  endpoint: string,
  log: Log,
): Promise<LeadsSection> {
  const { measureCase } = await import('./dynamo-costs.ts');
  const { searchPlan } = await import('../../functions/data/lead-search.ts');
  // The partition a q page reads, as the service picks it: the longest word's token prefix, or the
  // list itself when no word is long enough for one.
  const cases = leadCases(fixture, (q) => {
    const prefix = searchPlan(q)?.prefix;
    return prefix ? `t#<tenant>#leads-q#${prefix}` : 'gsi1 t#<tenant>#leads, searchText filter, bounded';
  });
  const costs: CostResult[] = [];
  for (const c of cases) {
    const cost = await measureCase(c, fixture.apiKey, samples);
    log(
      `  ${c.label}: ${cost.roundTrips} RT (${cost.sequentialRoundTrips} seq), ${cost.readUnits} RCU, ${cost.writeUnits} WCU, ${cost.queryItemsRead}/${cost.queryItemsReturned} items read/kept, ${cost.latencyMs} ms`,
    );
    costs.push(cost);
  }

  log('  the same over the local HTTP server…');
  const server = await startServerProcess(endpoint);
  const httpMs: number[] = [];
  try {
    for (const c of cases) {
      const times: number[] = [];
      // Indexes past the in-process run's 0..samples: fresh contacts and unused dedupe targets.
      for (let k = 0; k <= samples; k++) {
        const { url, init } = httpRequest(
          server.url,
          c.operationId,
          fixture.apiKey,
          c.request(samples + 1 + k),
        );
        const t = performance.now();
        const response = await fetch(url, init);
        await response.arrayBuffer();
        const ms = performance.now() - t;
        if (response.status !== c.status) {
          throw new Error(`${c.label} over HTTP: expected ${c.status}, got ${response.status}`);
        }
        if (k > 0) times.push(ms);
      }
      httpMs.push(round(median(times), 2));
    }
  } finally {
    await server.stop();
  }

  const unfiltered = costs[cases.findIndex((c) => c.kind === 'unfiltered')];
  const rows: LeadsRow[] = cases.map((c, n) => {
    const cost = costs[n] as CostResult;
    const ratio =
      c.kind === 'filtered' && unfiltered && unfiltered.readUnits > 0
        ? round(cost.readUnits / unfiltered.readUnits, 2)
        : null;
    const writeUnitsWithIndexes = 2 * (cost.transactItems + cost.transactIndexWrites);
    const t = c.target ?? {};
    const targets = [
      ...(t.rcuMax !== undefined ? [{ label: `RCU ≤ ${t.rcuMax}`, ok: cost.readUnits <= t.rcuMax }] : []),
      ...(t.msMax !== undefined ? [{ label: `≤ ${t.msMax} ms`, ok: cost.latencyMs <= t.msMax }] : []),
      ...(t.wcuMax !== undefined
        ? [{ label: `WCU ≤ ${t.wcuMax}`, ok: writeUnitsWithIndexes <= t.wcuMax }]
        : []),
    ];
    return {
      kind: c.kind,
      label: c.label,
      reads: c.reads ?? null,
      cost,
      httpMs: httpMs[n] ?? null,
      rcuRatio: ratio,
      ratioOk: ratio === null ? null : ratio <= FILTERED_PAGE_RATIO_TARGET,
      writeUnitsWithIndexes,
      targets,
    };
  });
  return {
    samples,
    targetRatio: FILTERED_PAGE_RATIO_TARGET,
    seed: fixture.seed,
    filters: {
      ownerAgentId: fixture.agentIds[0] ?? '',
      rareWord: RARE_SURNAMES.rare.toLowerCase(),
      rareWordBehindCommonPrefix: RARE_SURNAMES.rareBehindCommonPrefix.toLowerCase(),
    },
    rows,
  };
}
