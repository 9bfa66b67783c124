/**
 * Leads at scale (`--only leads --leads N --archived M`, docs/bench.md): a status change and each
 * list page of a Tenant of N Leads, the oldest M archived. Seeding writes the service's own items
 * with the bulk writer, not a transaction per Lead.
 */
import { bulkWriter, itemBuilder } from '../bulk.ts';
import { defineSection } from '../context.ts';
import { leadAt, RARE_SURNAMES } from '../data.ts';
import {
  COST_COLUMNS as C,
  type CostCase,
  type CostResult,
  measureCase,
  seedTenant,
} from '../dynamo-costs.ts';
import { fixed, mark, round, table } from '../stats.ts';

/** A filtered page costs at most this many times the unfiltered page's read units. */
export const FILTERED_PAGE_RATIO = 5;

/** `count` Leads, the oldest `archived` archived; and `targets` new Leads for the status change. */
async function seedLeads(count: number, archived: number, targets: number, endpoint: string) {
  const t = await seedTenant('leads');
  const { leadClaimOf, withDerivedKeys } = await import('../../../functions/data/leads.ts');
  const { tokensOf } = await import('../../../functions/data/lead-search.ts');
  const entities = '../../../functions/data/entities';
  const lead = itemBuilder((await import(`${entities}/lead.ts`)).Lead);
  const token = itemBuilder((await import(`${entities}/lead-search-token.ts`)).LeadSearchToken);
  const claim = itemBuilder((await import(`${entities}/unique-claim.ts`)).UniqueClaim);
  const writer = bulkWriter(endpoint);
  const moving: string[] = [];
  const options = { tenantId: t.tenantId, count, agentIds: t.agentIds, now: new Date() };
  for (let i = 0; i < count; i++) {
    const generated = leadAt(i, options);
    const l = withDerivedKeys(i < archived ? { ...generated, isActive: false } : generated);
    const claims = (['email', 'phone'] as const).flatMap((k) =>
      l[k] ? [{ kind: `lead-${k}` as const, value: l[k] }] : [],
    );
    await writer.put(lead(l), ...tokensOf(l).map(token), ...claims.map((c) => claim(leadClaimOf(l, c))));
    if (l.isActive && l.status === 'new' && moving.length < targets) moving.push(l.id);
  }
  const written = await writer.done();
  if (moving.length < targets) throw new Error('too few new Leads for the samples');
  return { ...t, moving, seed: { leads: count, archived, written } };
}

type LeadCase = CostCase & { filtered?: boolean };

/**
 * The rows: a status change; the list pages (the first with archived Leads before it, each filter,
 * the selective triple, q: a zero-hit typo, a country code, rare words behind a rare and a common prefix).
 */
function leadCases(t: Awaited<ReturnType<typeof seedLeads>>, partitionOf: (q: string) => string): LeadCase[] {
  const list = (label: string, query: Record<string, string>, bounds?: CostCase['bounds']): LeadCase => ({
    label: `${label} (${query.q ? partitionOf(query.q) : 'an index partition'})`,
    operationId: 'listLeads',
    status: 200,
    request: () => ({ query: { limit: '50', ...query } }),
    filtered: Object.keys(query).length > 0,
    bounds,
  });
  const bounded = { rcu: 50, ms: 1000 };
  const triple = { owner: 'unassigned', status: 'closed_won' };
  const [rare = '', behindCommon = ''] = Object.values(RARE_SURNAMES).map((s) => s.toLowerCase());
  const moved = (i: number) => ({ lead_id: t.moving[i] ?? '' });
  return [
    {
      label: 'PATCH /v1/leads/{id} status new → contacted',
      operationId: 'updateLead',
      status: 200,
      request: (i) => ({ pathParameters: moved(i), body: { status: 'contacted' } }),
      bounds: { wcuWithIndexes: 20 },
    },
    list(`GET /v1/leads?limit=50, ${t.seed.archived} archived before`, {}, { rcu: 10 }),
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
  about: 'a Tenant of --leads Leads (--archived archived): a status change, each list page',
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
    const unfiltered = costs.find((_, n) => cases[n]?.filtered === false)?.readUnits ?? Number.NaN;
    const rows = costs.map((cost, n) => {
      if (!cases[n]?.filtered) return { ...cost, ratio: Number.NaN };
      const ratio = round(cost.readUnits / unfiltered, 2);
      const check = `≤ ${FILTERED_PAGE_RATIO}× RCU ${mark(ratio <= FILTERED_PAGE_RATIO)}`;
      return { ...cost, ratio, checks: [check, ...cost.checks] };
    });
    return { samples, seed: t.seed, rows };
  },
  render({ samples, seed, rows }) {
    const w = seed.written;
    const columns = [C.status, C.rt, C.seq, C.rcu, C.wcu, C.wcuWithIndexes, C.messages, C.read, C.ms];
    return [
      `One Tenant: ${seed.leads} Leads (the oldest ${seed.archived} archived first), 5 Agents; ${w.items} items written in ${w.seconds} s (${w.itemsPerSecond} items/s, ${w.retries} retries). Median of ${samples} requests after a warm-up, the API key cached.`,
      '',
      ...table(
        [['request', (r) => r.label], ...columns, ['RCU ×', (r) => fixed(r.ratio, 2)], C.checks],
        rows,
      ),
    ];
  },
});
