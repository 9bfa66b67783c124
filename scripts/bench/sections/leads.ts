/**
 * Leads at scale (`--only leads --leads N --archived M`): one Tenant with N Leads, the oldest M
 * archived before the live ones were last touched (a mature Tenant), then what an ingest, a status
 * change and each list page (unfiltered, by status, owner, tier, the selective triple, q) cost per
 * request. Seeding writes the service's own items (withDerivedKeys, tokensOf, leadClaimOf, then the
 * entities' key templates: entity-items.ts) with the bulk writer, not a transaction per Lead.
 */
import { randomUUID } from 'node:crypto';
import { benchClient, bulkWriter, itemBuilder } from '../bulk.ts';
import { defineSection } from '../context.ts';
import { leadAt, RARE_SURNAMES } from '../data.ts';
import { type CostCase, type CostResult, measureCase, seedTenant } from '../dynamo-costs.ts';
import { BENCH_TABLE } from '../env.ts';
import { fixed, round, table } from '../stats.ts';

/** A filtered page costs at most this many times the unfiltered page's read units. */
export const FILTERED_PAGE_RATIO = 5;
type Bounds = { rcu?: number; ms?: number; wcu?: number };
type LeadCase = CostCase & { filtered?: boolean; bounds?: Bounds };

/** `count` Leads, the oldest `archived` archived; and the Leads each write row uses, `targets` each. */
async function seedLeads(count: number, archived: number, targets: number, endpoint: string) {
  const t = await seedTenant('leads');
  const { leadClaimOf, withDerivedKeys } = await import('../../../functions/data/leads.ts');
  const { tokensOf } = await import('../../../functions/data/lead-search.ts');
  const entities = '../../../functions/data/entities';
  const lead = itemBuilder((await import(`${entities}/lead.ts`)).Lead);
  const token = itemBuilder((await import(`${entities}/lead-search-token.ts`)).LeadSearchToken);
  const claim = itemBuilder((await import(`${entities}/unique-claim.ts`)).UniqueClaim);
  const writer = bulkWriter(benchClient(endpoint), BENCH_TABLE);
  // A new Lead to move on; dedupe targets active, owned, attributed, with no rare word in the name.
  const picked = { unchanged: [] as string[][], phoneFill: [] as string[][], statusChange: [] as string[] };
  const rare = new RegExp(Object.values(RARE_SURNAMES).join('|'));
  const options = { tenantId: t.tenantId, count, agentIds: t.agentIds, now: new Date() };
  for (let i = 0; i < count; i++) {
    const generated = leadAt(i, options);
    const l = withDerivedKeys(i < archived ? { ...generated, isActive: false } : generated);
    const claims = (['email', 'phone'] as const).flatMap((k) =>
      l[k] ? [{ kind: `lead-${k}` as const, value: l[k] }] : [],
    );
    await writer.put(lead(l), ...tokensOf(l).map(token), ...claims.map((c) => claim(leadClaimOf(l, c))));
    const list = l.phone ? picked.unchanged : picked.phoneFill;
    const usable = l.isActive && l.email && l.assignedAgentId && l.sourceDetail && !rare.test(l.name);
    if (usable && list.length < targets) list.push([l.name, l.email ?? '']);
    const moving = l.isActive && l.status === 'new';
    if (moving && picked.statusChange.length < targets) picked.statusChange.push(l.id);
  }
  const written = await writer.done();
  if (Object.values(picked).some((list) => list.length < targets))
    throw new Error('too few Leads for the samples');
  return { ...t, picked, seed: { leads: count, archived, written } };
}

/**
 * The rows: three ingests (a new contact, two dedupes), a status change, the list pages (the first
 * with archived Leads before it, each filter, the selective triple, a zero-hit typo, q = a country
 * code, two rare words behind a rare and a common prefix).
 */
function leadCases(t: Awaited<ReturnType<typeof seedLeads>>, partitionOf: (q: string) => string): LeadCase[] {
  const run = randomUUID().slice(0, 6);
  const phone = (prefix: string, i: number) => `+34 7${prefix}${Number.parseInt(run, 16) % 1000} ${1000 + i}`;
  const who = ([name, email]: string[] = []) => ({ name, email });
  const inquiry = { source: 'idealista', type: 'inquiry', message: '¿Sigue disponible?' };
  const ingest = (label: string, status: number, person: (i: number) => object): LeadCase => ({
    label: `POST /v1/leads:ingest, ${label}`,
    operationId: 'ingestLead',
    status,
    request: (i) => ({ body: { ...inquiry, person: person(i) } }),
  });
  const list = (label: string, query: Record<string, string>, bounds?: Bounds): LeadCase => ({
    label: `${label} (${query.q ? partitionOf(query.q) : 'an index partition'})`,
    operationId: 'listLeads',
    status: 200,
    request: () => ({ query: { limit: '50', ...query } }),
    filtered: true,
    ...(bounds && { bounds }),
  });
  const bounded = { rcu: 50, ms: 1000 };
  const triple = { owner: 'unassigned', status: 'closed_won' };
  const [rare = '', behindCommon = ''] = Object.values(RARE_SURNAMES).map((s) => s.toLowerCase());
  const moved = (i: number) => ({ lead_id: t.picked.statusChange[i] ?? '' });
  return [
    ingest('new contact', 201, (i) => ({
      name: `Núria ${i}`,
      email: `n.${run}.${i}@example.com`,
      phone: phone('1', i),
    })),
    ingest('dedupe (an Inquiry only)', 200, (i) => who(t.picked.unchanged[i])),
    ingest('dedupe + a new phone (Lead, tokens)', 200, (i) => ({
      ...who(t.picked.phoneFill[i]),
      phone: phone('2', i),
    })),
    {
      label: 'PATCH /v1/leads/{id} status new → contacted',
      operationId: 'updateLead',
      status: 200,
      request: (i) => ({ pathParameters: moved(i), body: { status: 'contacted' } }),
      bounds: { wcu: 20 },
    },
    {
      ...list(`GET /v1/leads?limit=50, ${t.seed.archived} archived before`, {}, { rcu: 10 }),
      filtered: false,
    },
    list('…&status=qualified', { status: 'qualified' }),
    list('…&owner=<agent id>', { owner: t.agentIds[0] ?? '' }),
    list('…&owner=unassigned', { owner: 'unassigned' }),
    list('…&tier=hot', { tier: 'hot' }),
    list('…&owner=unassigned&status=closed_won&tier=hot', { ...triple, tier: 'hot' }, bounded),
    list('…&q=mar (a common prefix)', { q: 'mar' }),
    list('…&q=garcx (a zero-hit typo)', { q: 'garcx' }, bounded),
    list('…&q=34 (a country code)', { q: '34' }, bounded),
    list(`…&q=${rare} (a rare word)`, { q: rare }),
    list(`…&q=${behindCommon} (a rare word, a common prefix)`, { q: behindCommon }),
  ];
}

export const leads = defineSection({
  name: 'leads',
  about: 'a Tenant of --leads Leads (--archived archived): an ingest, a status change, each list page',
  optIn: true,
  async run(ctx) {
    const { endpoint } = await ctx.service();
    const samples = ctx.num('samples');
    const t = await seedLeads(ctx.num('leads'), ctx.num('archived'), samples + 1, endpoint);
    ctx.log(`  seeded ${t.seed.written.items} items in ${t.seed.written.seconds} s`);
    const { searchPlan } = await import('../../../functions/data/lead-search.ts');
    // The partition a q page reads, as the service picks it: the longest word's token prefix, or the
    // list itself with a word filter when no word is long enough for one.
    const cases = leadCases(t, (q) =>
      searchPlan(q)?.prefix ? `tokens ${searchPlan(q)?.prefix}` : 'a word filter',
    );
    const costs: CostResult[] = [];
    for (const c of cases) costs.push(await measureCase(c, t.apiKey, samples));
    const unfiltered = costs[4]?.readUnits ?? Number.NaN;
    const rows = cases.map(({ label, filtered, bounds: b = {} }, n) => {
      const cost = costs[n] as CostResult;
      const ratio = filtered ? round(cost.readUnits / unfiltered, 2) : Number.NaN;
      const wcuWithIndexes = 2 * (cost.transactItems + cost.transactIndexWrites);
      const checks: [string, boolean][] = [
        ...(filtered
          ? [[`≤ ${FILTERED_PAGE_RATIO}× RCU`, ratio <= FILTERED_PAGE_RATIO] as [string, boolean]]
          : []),
        ...(b.rcu ? [[`RCU ≤ ${b.rcu}`, cost.readUnits <= b.rcu] as [string, boolean]] : []),
        ...(b.ms ? [[`≤ ${b.ms} ms`, cost.latencyMs <= b.ms] as [string, boolean]] : []),
        ...(b.wcu ? [[`WCU ≤ ${b.wcu}`, wcuWithIndexes <= b.wcu] as [string, boolean]] : []),
      ];
      return {
        label,
        cost,
        ratio,
        wcuWithIndexes,
        checks: checks.map(([l, ok]) => `${l} ${ok ? 'ok' : 'OVER'}`),
      };
    });
    return { samples, seed: t.seed, rows };
  },
  render({ samples, seed, rows }) {
    const w = seed.written;
    return [
      `One Tenant: ${seed.leads} Leads (the oldest ${seed.archived} archived first), 5 Agents; ${w.items} items written in ${w.seconds} s (${w.itemsPerSecond} items/s, ${w.retries} retries). Median of ${samples} requests after a warm-up, the API key cached. WCU +idx: 2 a transaction item and a GSI entry it writes; read/kept: items the Queries read and kept after filters.`,
      '',
      ...table(
        [
          'request',
          'status',
          'RT',
          'seq',
          'RCU',
          'WCU',
          'WCU +idx',
          'SES/SQS',
          'read/kept',
          'ms',
          'RCU ×',
          'targets',
        ],
        rows.map(({ label, cost: c, ratio, wcuWithIndexes, checks }) => [
          ...[
            label,
            c.status,
            c.roundTrips,
            c.sequentialRoundTrips,
            c.readUnits,
            c.writeUnits,
            wcuWithIndexes,
          ],
          ...[
            c.localPortWrites,
            `${c.queryItemsRead}/${c.queryItemsReturned}`,
            fixed(c.latencyMs),
            fixed(ratio, 2),
          ],
          checks.join('; ') || '-',
        ]),
      ),
    ];
  },
});
