/**
 * The soak's audit: rules that compare the driver's ledger with what was read
 * back once the stack drained. Each rule is a pure function of the two and returns its figures and
 * its failures (a loss, a duplicate that must not be, a mismatch), so that a test can plant a loss in
 * either and see it named.
 */
import { EVENT_TYPES } from '../../functions/domain/events.ts';
import type {
  ExpectedEvent,
  Ledger,
  Observation,
  ObservedEvent,
  ObservedTenant,
  ReceivedCall,
  TenantLedger,
} from './ledger.ts';

export interface RuleResult {
  rule: string;
  /** One screen line of figures. */
  figures: string;
  failures: string[];
  /** Expected, found, missing and extra per kind, where the rule counts kinds. */
  table?: KindCount[];
  /** Repeats at-least-once delivery allows (never a failure), by kind: reported as a rate. */
  duplicates?: Record<string, number>;
}

/**
 * A call may leave a delivery worker that read the endpoint (enabled) before it was disabled: this
 * long after. Between that read and its POST the worker reads the subscribing key's standing and
 * resolves the URL; with the soak's injected throttles the SDK's backoff can stretch that to many
 * seconds on a loaded machine (17 s seen at load 20, where 2 s failed sound runs). A send that
 * started after the disable shows as a call past this window.
 */
export const IN_FLIGHT_GRACE_MS = 30_000;

/** At most this many failures are listed per rule (the count says how many there were). */
const LISTED = 8;

function countBy<T>(items: readonly T[], key: (item: T) => string): Map<string, number> {
  const counts = new Map<string, number>();
  for (const item of items) counts.set(key(item), (counts.get(key(item)) ?? 0) + 1);
  return counts;
}

function observedOf(observation: Observation, tenant: TenantLedger): ObservedTenant | undefined {
  return observation.tenants[tenant.tenantId];
}

/** One row of a rule's table: what the ledger expected of one kind, and what was found. */
export interface KindCount {
  kind: string;
  expected: number;
  found: number;
  missing: number;
  extra: number;
}

/** Whether an observed event's key fields satisfy an expected key (`includes:<field>` or exact). */
function keyMatches(expected: string, observed: string): boolean {
  if (!expected.startsWith('includes:')) return expected === observed;
  return observed.split(',').includes(expected.slice('includes:'.length));
}

function addCount(rows: Map<string, KindCount>, kind: string, field: keyof Omit<KindCount, 'kind'>, n = 1) {
  const row = rows.get(kind) ?? { kind, expected: 0, found: 0, missing: 0, extra: 0 };
  row[field] += n;
  rows.set(kind, row);
}

/**
 * Every event the ledger expects is in the log, once, with its key fields; and the log holds no
 * event the ledger does not explain (a second event for one change under another id, an event of
 * a change nobody made). Counted per event type from the ledger (expected.ts), never from the
 * system's records; event ids are unique.
 */
export function eventsPerChange(ledger: Ledger, observation: Observation): RuleResult {
  const failures: string[] = [];
  const rows = new Map<string, KindCount>();
  const all: ObservedEvent[] = [];
  for (const tenant of ledger.tenants) {
    const seen = observedOf(observation, tenant);
    if (!seen) {
      failures.push(`${tenant.slug}: nothing read back`);
      continue;
    }
    all.push(...seen.events);
    const groups = new Map<string, { expected: ExpectedEvent[]; observed: ObservedEvent[] }>();
    const group = (type: string, subjectId: string) => {
      const id = `${type}|${subjectId}`;
      const found = groups.get(id) ?? { expected: [], observed: [] };
      groups.set(id, found);
      return found;
    };
    // The log and the table agree on what exists (a Lead or Inquiry without its creation event).
    const created = seen.events.filter((e) => e.type === 'lead.created').length;
    if (created !== seen.leads.length)
      failures.push(`${tenant.slug}: ${created} lead.created but ${seen.leads.length} Leads in the table`);
    const asked = seen.events.filter((e) => e.type === 'inquiry.created').length;
    if (asked !== seen.inquiryIds.length)
      failures.push(
        `${tenant.slug}: ${asked} inquiry.created but ${seen.inquiryIds.length} Inquiries in the table`,
      );
    for (const e of tenant.expectedEvents) group(e.type, e.subjectId).expected.push(e);
    for (const e of seen.events) group(e.type, e.subjectId).observed.push(e);
    for (const { expected, observed } of groups.values()) {
      const left = [...observed];
      const unmatched: ExpectedEvent[] = [];
      // Exact keys first, then the `includes:` ones, so that a loose expectation never takes the
      // event an exact one needs.
      const ordered = [...expected].sort(
        (a, b) => Number(a.key.startsWith('includes:')) - Number(b.key.startsWith('includes:')),
      );
      for (const want of ordered) {
        const at = left.findIndex((e) => keyMatches(want.key, e.key));
        if (at >= 0) left.splice(at, 1);
        else unmatched.push(want);
      }
      for (const want of expected) addCount(rows, want.type, 'expected');
      for (const e of observed) addCount(rows, e.type, 'found');
      for (const want of unmatched) {
        addCount(rows, want.type, 'missing');
        failures.push(
          `${tenant.slug}: missing ${want.type} for ${want.subjectId}${want.key ? ` (${want.key})` : ''} after ${want.because}${
            observed.length ? `; the log has ${observed.map((e) => e.key || '·').join(' | ')}` : ''
          }`,
        );
      }
      for (const e of left) {
        addCount(rows, e.type, 'extra');
        failures.push(
          `${tenant.slug}: ${e.type} ${e.id} for ${e.subjectId}${e.key ? ` (${e.key})` : ''}: no change in the ledger explains it`,
        );
      }
    }
  }
  const repeated = [...countBy(all, (e) => e.id)].filter(([, n]) => n > 1);
  for (const [id, n] of repeated) failures.push(`event id ${id} appears ${n} times`);
  // Every type of the catalogue has its row, an unexercised one with its zeros. The catalogue is the
  // service's own list: what the audit holds the log to is the ledger, predicted from the driver's
  // answers (expected.ts), so a type the service stopped emitting still shows as missing there.
  for (const type of EVENT_TYPES) if (!rows.has(type)) addCount(rows, type, 'expected', 0);
  const table = [...rows.values()].sort((a, b) => a.kind.localeCompare(b.kind));
  const total = table.reduce((n, r) => n + r.expected, 0);
  return {
    rule: 'events per change',
    figures: `${total} expected by the ledger, ${all.length} in the log, ${table.reduce((n, r) => n + r.missing, 0)} missing, ${table.reduce((n, r) => n + r.extra, 0)} extra`,
    failures,
    table,
  };
}

/** Per Lead, `found` against `expected`; the rows and failures of one side effect. */
function perLead(
  kind: string,
  ledger: Ledger,
  observation: Observation,
  expectedOf: (tenant: TenantLedger) => Record<string, number>,
  foundOf: (tenant: ObservedTenant | undefined) => Record<string, number>,
): { row: KindCount; failures: string[] } {
  const row: KindCount = { kind, expected: 0, found: 0, missing: 0, extra: 0 };
  const failures: string[] = [];
  for (const tenant of ledger.tenants) {
    const expected = expectedOf(tenant);
    const found = foundOf(observedOf(observation, tenant));
    for (const id of new Set([...Object.keys(expected), ...Object.keys(found)])) {
      const want = expected[id] ?? 0;
      const got = found[id] ?? 0;
      row.expected += want;
      row.found += got;
      if (got < want) {
        row.missing += want - got;
        failures.push(`${tenant.slug}: ${kind} for ${id}: ${got} of ${want}`);
      }
      if (got > want) {
        row.extra += got - want;
        failures.push(`${tenant.slug}: ${kind} for ${id}: ${got}, expected ${want} (sent twice?)`);
      }
    }
  }
  return { row, failures };
}

/**
 * The work that follows a change besides its events, counted from the ledger: each Inquiry scored
 * once (one run, one receipt: never two runs for one request), each listing that asks for AI
 * enrichment enriched once, each Owner told once per Inquiry of a Lead they own, each Admin told
 * once that an endpoint was disabled for a 410.
 */
export function sideEffects(ledger: Ledger, observation: Observation): RuleResult {
  const scoring = perLead(
    'scoring runs',
    ledger,
    observation,
    (t) => t.scoringRuns,
    (seen) => seen?.scoreReceipts ?? {},
  );
  const emails = perLead(
    'Owner emails',
    ledger,
    observation,
    (t) => t.ownerEmails,
    (seen) =>
      Object.fromEntries([
        ...countBy(
          (seen?.emails ?? []).filter((m) => m.leadId),
          (m) => m.leadId as string,
        ),
      ]),
  );
  const enrichment: KindCount = { kind: 'enrichment runs', expected: 0, found: 0, missing: 0, extra: 0 };
  const notices: KindCount = { kind: 'disable notices', expected: 0, found: 0, missing: 0, extra: 0 };
  const failures = [...scoring.failures, ...emails.failures];
  for (const tenant of ledger.tenants) {
    const seen = observedOf(observation, tenant);
    const enriched = tenant.enriched.filter((id) => seen?.enrichment[id] === 'enriched').length;
    enrichment.expected += tenant.enriched.length;
    enrichment.found += seen?.enrichReceipts ?? 0;
    for (const id of tenant.enriched) {
      if (seen?.enrichment[id] !== 'enriched')
        failures.push(
          `${tenant.slug}: listing ${id} asked for enrichment and is ${seen?.enrichment[id] ?? 'missing'}`,
        );
    }
    const receipts = seen?.enrichReceipts ?? 0;
    if (receipts < enriched) {
      enrichment.missing += enriched - receipts;
      failures.push(`${tenant.slug}: ${enriched} listings enriched, ${receipts} enrichment runs charged`);
    }
    if (receipts > tenant.enriched.length) {
      enrichment.extra += receipts - tenant.enriched.length;
      failures.push(`${tenant.slug}: ${receipts} enrichment runs for ${tenant.enriched.length} requests`);
    }
    enrichment.missing += tenant.enriched.length - enriched;
    const disabled = (seen?.emails ?? []).filter((m) =>
      m.subject.startsWith('Webhook endpoint disabled'),
    ).length;
    notices.expected += tenant.disableNotices;
    notices.found += disabled;
    if (disabled !== tenant.disableNotices) {
      if (disabled < tenant.disableNotices) notices.missing += tenant.disableNotices - disabled;
      else notices.extra += disabled - tenant.disableNotices;
      failures.push(`${tenant.slug}: ${disabled} disable notices, expected ${tenant.disableNotices}`);
    }
  }
  const table = [scoring.row, enrichment, emails.row, notices];
  return {
    rule: 'side effects',
    figures: table.map((r) => `${r.kind} ${r.found}/${r.expected}`).join(', '),
    failures,
    table,
  };
}

/** The events an endpoint subscribed to, from its Tenant's log. */
function expectedFor(events: readonly ObservedEvent[], subscribed: readonly string[]): Set<string> {
  return new Set(events.filter((e) => subscribed.includes(e.type)).map((e) => e.id));
}

function callsTo(received: readonly ReceivedCall[], endpointId: string): ReceivedCall[] {
  return received.filter((c) => c.endpointId === endpointId);
}

const isSuccess = (status: number) => status >= 200 && status < 300;

/**
 * Every subscribed event reached the healthy receiver (unique webhook-ids = the events expected;
 * duplicates counted, at-least-once allows them), each call's signature verified.
 */
export function healthyReceiver(ledger: Ledger, observation: Observation): RuleResult {
  const failures: string[] = [];
  let expectedTotal = 0;
  let unique = 0;
  let duplicates = 0;
  for (const tenant of ledger.tenants) {
    const seen = observedOf(observation, tenant);
    for (const endpoint of tenant.endpoints.filter((e) => e.receiver === 'healthy')) {
      const expected = expectedFor(seen?.events ?? [], endpoint.events);
      const calls = callsTo(observation.received, endpoint.id);
      const ids = new Set(calls.map((c) => c.webhookId));
      expectedTotal += expected.size;
      unique += ids.size;
      duplicates += calls.length - ids.size;
      for (const id of expected)
        if (!ids.has(id)) failures.push(`${tenant.slug}: event ${id} never reached healthy`);
      for (const id of ids)
        if (!expected.has(id)) failures.push(`${tenant.slug}: healthy got ${id}, no such event`);
      for (const call of calls) {
        if (!call.verified)
          failures.push(`${tenant.slug}: healthy got ${call.webhookId} with a bad signature`);
      }
    }
  }
  return {
    rule: 'healthy receiver',
    figures: `${expectedTotal} expected, ${unique} unique webhook-ids, ${duplicates} duplicates (${
      unique ? ((100 * duplicates) / unique).toFixed(2) : '0'
    }% at-least-once repeats)`,
    failures,
    duplicates: { 'a webhook-id delivered again (healthy receiver)': duplicates },
    table: [
      {
        kind: 'webhooks to the healthy receiver',
        expected: expectedTotal,
        found: unique,
        missing: Math.max(0, expectedTotal - unique),
        extra: 0,
      },
    ],
  };
}

/**
 * The flaky receiver's events were all attempted and each attempt logged: every subscribed event was
 * received at least once and has a delivery with attempts; none was given up (failed) while the
 * receiver answered 2xx most of the time; every call's signature verified.
 */
export function flakyReceiver(ledger: Ledger, observation: Observation): RuleResult {
  const failures: string[] = [];
  let calls = 0;
  let failedCalls = 0;
  let logged = 0;
  let pending = 0;
  let expectedTotal = 0;
  for (const tenant of ledger.tenants) {
    const seen = observedOf(observation, tenant);
    for (const endpoint of tenant.endpoints.filter((e) => e.receiver === 'flaky')) {
      const expected = expectedFor(seen?.events ?? [], endpoint.events);
      expectedTotal += expected.size;
      const got = callsTo(observation.received, endpoint.id);
      calls += got.length;
      failedCalls += got.filter((c) => !isSuccess(c.answered)).length;
      const deliveries = new Map((seen?.endpoints[endpoint.id]?.deliveries ?? []).map((d) => [d.eventId, d]));
      for (const id of expected) {
        const delivery = deliveries.get(id);
        const attempts = got.filter((c) => c.webhookId === id);
        if (!delivery) {
          failures.push(`${tenant.slug}: event ${id} has no delivery to flaky`);
          continue;
        }
        logged += delivery.attemptCount;
        if (delivery.status === 'pending') pending += 1;
        if (attempts.length === 0) failures.push(`${tenant.slug}: event ${id} never attempted at flaky`);
        if (delivery.attemptCount === 0 && attempts.length > 0) {
          failures.push(`${tenant.slug}: ${attempts.length} calls of ${id} to flaky, none logged`);
        }
        if (delivery.status === 'failed') failures.push(`${tenant.slug}: delivery of ${id} to flaky gave up`);
      }
      for (const call of got) {
        if (!call.verified) failures.push(`${tenant.slug}: flaky got ${call.webhookId} with a bad signature`);
      }
    }
  }
  return {
    rule: 'flaky receiver',
    figures: `${expectedTotal} expected, ${calls} calls (${failedCalls} failed or timed out), ${logged} attempts logged, ${pending} still on the ladder`,
    failures,
  };
}

/** The endpoint that started answering 410 was disabled at its first 410 and got nothing after. */
export function goneReceiver(ledger: Ledger, observation: Observation): RuleResult {
  const failures: string[] = [];
  let disabled = 0;
  let after = 0;
  let gone = 0;
  for (const tenant of ledger.tenants) {
    const seen = observedOf(observation, tenant);
    for (const endpoint of tenant.endpoints.filter((e) => e.receiver === 'gone')) {
      gone += 1;
      const got = callsTo(observation.received, endpoint.id).sort((a, b) => a.at - b.at);
      const first410 = got.find((c) => c.answered === 410);
      if (!first410) continue;
      const state = seen?.endpoints[endpoint.id];
      if (state && !state.enabled && state.disabledReason === 'gone') disabled += 1;
      else failures.push(`${tenant.slug}: endpoint ${endpoint.id} answered 410 and is not disabled for it`);
      const late = got.filter((c) => c.at > first410.at + IN_FLIGHT_GRACE_MS);
      after += late.length;
      for (const call of late.slice(0, 3)) {
        failures.push(
          `${tenant.slug}: ${call.webhookId} sent to the gone endpoint ${call.at - first410.at} ms after its 410`,
        );
      }
    }
  }
  return {
    rule: 'gone receiver',
    figures: `${disabled} of ${gone} endpoints disabled at their 410, ${after} calls after it`,
    failures,
  };
}

/** The retry ladder the API documents: the waits after each failed attempt. */
export const INTERFACE_LADDER_MS = [1, 5, 30, 120, 360, 720, 1440, 1440].map((minutes) => minutes * 60_000);

/**
 * Each delivery the ladder receiver failed every time walked the whole ladder: one first attempt
 * and a retry after each of the eight waits (none early), each of them received, then it was given
 * up (failed, 9 attempts).
 */
export function ladderWalked(ledger: Ledger, observation: Observation): RuleResult {
  const failures: string[] = [];
  let walked = 0;
  let doomedTotal = 0;
  let repeats = 0;
  const attempts = INTERFACE_LADDER_MS.length + 1;
  for (const tenant of ledger.tenants) {
    const seen = observedOf(observation, tenant);
    for (const endpoint of tenant.endpoints.filter((e) => e.receiver === 'ladder')) {
      const doomed = ledger.doomed[endpoint.id] ?? [];
      doomedTotal += doomed.length;
      if (doomed.length === 0) failures.push(`${tenant.slug}: the ladder receiver was never sent an event`);
      const deliveries = seen?.endpoints[endpoint.id]?.deliveries ?? [];
      for (const webhookId of doomed) {
        const calls = callsTo(observation.received, endpoint.id)
          .filter((c) => c.webhookId === webhookId)
          .map((c) => c.at)
          .sort((a, b) => a - b);
        const delivery = deliveries.find((d) => d.eventId === webhookId);
        const problems: string[] = [];
        if (delivery?.status !== 'failed' || delivery.attemptCount !== attempts)
          problems.push(
            `delivery ${delivery ? `${delivery.status} after ${delivery.attemptCount} attempts` : 'missing'}`,
          );
        const recorded = [...(delivery?.attemptTimes ?? [])].sort((a, b) => a - b);
        for (let i = 1; i < recorded.length && i <= INTERFACE_LADDER_MS.length; i++) {
          const wait = (recorded[i] ?? 0) - (recorded[i - 1] ?? 0);
          const rung = (INTERFACE_LADDER_MS[i - 1] ?? 0) * ledger.retryDelayScale;
          // One machine's clock; 50 ms of slack for rounding.
          if (wait < rung - 50)
            problems.push(`retry ${i} after ${wait} ms, before its ${Math.round(rung)} ms wait`);
        }
        // Each recorded attempt reached the receiver (the call nearest to it, within its 10 s);
        // a call no recorded attempt accounts for repeats one (a message delivered twice, an
        // attempt made again because its outcome could not be recorded): at-least-once, counted.
        const unmatched = [...calls];
        for (const at of recorded) {
          const nearest = unmatched.reduce<number | undefined>(
            (best, call) => (best === undefined || Math.abs(call - at) < Math.abs(best - at) ? call : best),
            undefined,
          );
          if (nearest === undefined || Math.abs(nearest - at) > 11_000) {
            problems.push(`the attempt recorded at ${new Date(at).toISOString()} never reached the receiver`);
            continue;
          }
          unmatched.splice(unmatched.indexOf(nearest), 1);
        }
        repeats += unmatched.length;
        if (problems.length)
          failures.push(`${tenant.slug}: ${webhookId} did not walk the ladder: ${problems.join('; ')}`);
        else walked += 1;
      }
    }
  }
  return {
    rule: 'ladder walked',
    figures: `${walked} of ${doomedTotal} always-failing deliveries walked all ${attempts} attempts (${repeats} calls repeated an attempt)`,
    failures,
    duplicates: { 'a ladder attempt received again': repeats },
  };
}

/**
 * Every rung the ladder handed to the Scheduler stand-in was sent to the delivery queue: each
 * schedule created fired at least once. A second firing is Scheduler's at-least-once delivery
 * (reported, not a failure); a failed send to the queue is retried by the stand-in.
 */
export function scheduledRungs(_ledger: Ledger, observation: Observation): RuleResult {
  const created = new Set(observation.schedules.filter((e) => e.kind === 'created').map((e) => e.schedule));
  const fired = new Set(observation.schedules.filter((e) => e.kind === 'fired').map((e) => e.schedule));
  const twice = observation.schedules.filter((e) => e.kind === 'fired-again').length;
  const retried = observation.schedules.filter((e) => e.kind === 'target-failed').length;
  const failures = [...created]
    .filter((name) => !fired.has(name))
    .map((name) => `schedule ${name} was created and never fired`);
  return {
    rule: 'scheduled rungs',
    figures: `${created.size} schedules created, ${[...created].filter((n) => fired.has(n)).length} fired, ${twice} fired twice, ${retried} sends to the queue failed and retried`,
    failures,
    duplicates: { 'a schedule fired twice (Scheduler stand-in)': twice },
    table: [
      {
        kind: 'ladder rungs through the Scheduler',
        expected: created.size,
        found: [...created].filter((n) => fired.has(n)).length,
        missing: failures.length,
        extra: 0,
      },
    ],
  };
}

/** No Lead duplicated by email or phone within a Tenant; concurrent duplicates named one Lead. */
export function noDuplicateLeads(ledger: Ledger, observation: Observation): RuleResult {
  const failures: string[] = [];
  let leads = 0;
  for (const tenant of ledger.tenants) {
    const seen = observedOf(observation, tenant);
    leads += seen?.leads.length ?? 0;
    for (const field of ['email', 'phone'] as const) {
      const counts = countBy(
        (seen?.leads ?? []).filter((l) => l[field]),
        (l) => String(l[field]).toLowerCase(),
      );
      for (const [value, n] of counts)
        if (n > 1) failures.push(`${tenant.slug}: ${n} Leads with ${field} ${value}`);
    }
    for (const group of tenant.concurrent) {
      if (new Set(group.leadIds).size > 1) {
        failures.push(
          `${tenant.slug}: concurrent ingests of ${group.email} answered ${new Set(group.leadIds).size} Leads`,
        );
      }
    }
  }
  const groups = ledger.tenants.reduce((n, t) => n + t.concurrent.length, 0);
  return {
    rule: 'no duplicate Leads',
    figures: `${leads} Leads, ${groups} concurrent-duplicate groups`,
    failures,
  };
}

/** Every retried ingest with the same Idempotency-Key answered the first answer. */
export function idempotentReplays(ledger: Ledger, _observation: Observation): RuleResult {
  const failures: string[] = [];
  const replays = ledger.tenants.flatMap((t) => t.replays.map((r) => ({ slug: t.slug, ...r })));
  for (const replay of replays) {
    if (replay.first.status !== replay.second.status || replay.first.body !== replay.second.body) {
      failures.push(
        `${replay.slug}: Idempotency-Key ${replay.idempotencyKey} answered ${replay.second.status} after ${replay.first.status}, bodies ${replay.first.body === replay.second.body ? 'equal' : 'differ'}`,
      );
    }
  }
  return { rule: 'idempotent replays', figures: `${replays.length} replays`, failures };
}

/** AI spend equals the runs made: the month's `runs` counter = the receipts that charged spend. */
export function aiSpend(ledger: Ledger, observation: Observation): RuleResult {
  const failures: string[] = [];
  let runs = 0;
  let receipts = 0;
  for (const tenant of ledger.tenants) {
    const seen = observedOf(observation, tenant);
    runs += seen?.aiRuns ?? 0;
    receipts += seen?.aiChargedReceipts ?? 0;
    if ((seen?.aiRuns ?? 0) !== (seen?.aiChargedReceipts ?? 0)) {
      failures.push(
        `${tenant.slug}: AI spend counts ${seen?.aiRuns} runs, ${seen?.aiChargedReceipts} charged`,
      );
    }
  }
  return { rule: 'AI spend', figures: `${runs} runs charged, ${receipts} receipts`, failures };
}

/** Every photo import the driver asked for finished ready. */
export function photoImports(ledger: Ledger, observation: Observation): RuleResult {
  const failures: string[] = [];
  let ready = 0;
  let total = 0;
  for (const tenant of ledger.tenants) {
    const seen = observedOf(observation, tenant);
    for (const { importId } of tenant.imports) {
      total += 1;
      const status = seen?.imports[importId];
      if (status === 'ready') ready += 1;
      else failures.push(`${tenant.slug}: photo import ${importId} is ${status ?? 'missing'}`);
    }
  }
  return {
    rule: 'photo imports',
    figures: `${ready} of ${total} ready`,
    failures,
    table: [{ kind: 'photo imports ready', expected: total, found: ready, missing: total - ready, extra: 0 }],
  };
}

/** Nothing in a local dead-letter queue or the stream's on-failure destination. */
export function nothingDiscarded(_ledger: Ledger, observation: Observation): RuleResult {
  const failures = [
    ...observation.deadLetters.map((m) => `dead letter on ${m.queue}: ${m.id} ${m.body.slice(0, 120)}`),
    ...observation.parked.map(
      (p) => `stream record ${p.sequenceNumber} (event ${p.eventId}) discarded: ${p.reason}`,
    ),
  ];
  return {
    rule: 'dead letters',
    figures: `${observation.deadLetters.length} dead letters, ${observation.parked.length} discarded stream records`,
    failures,
  };
}

/** The service never answered 5xx. */
export function noServerErrors(ledger: Ledger, _observation: Observation): RuleResult {
  const total = Object.values(ledger.requests).reduce((a, b) => a + b, 0);
  return {
    rule: 'requests',
    figures: `${total} answered (${Object.entries(ledger.requests)
      .map(([op, n]) => `${op} ${n}`)
      .join(
        ', ',
      )}), ${ledger.unanswered} unanswered at the end, retried ${Object.values(ledger.retries).reduce((a, b) => a + b, 0)}`,
    failures: ledger.serverErrors.map((e) => `${e.op} answered ${e.status}: ${e.body.slice(0, 160)}`),
  };
}

export const RULES = [
  noServerErrors,
  eventsPerChange,
  sideEffects,
  healthyReceiver,
  flakyReceiver,
  goneReceiver,
  ladderWalked,
  scheduledRungs,
  noDuplicateLeads,
  idempotentReplays,
  aiSpend,
  photoImports,
  nothingDiscarded,
] as const;

/** Every rule's result. */
export function audit(ledger: Ledger, observation: Observation): RuleResult[] {
  return RULES.map((rule) => rule(ledger, observation));
}

/** The screen of figures: one line per rule, then the failures (a few per rule). */
export function report(results: readonly RuleResult[]): string {
  const lines: string[] = [];
  for (const r of results)
    lines.push(`${r.failures.length ? 'FAIL' : 'ok  '} ${r.rule.padEnd(20)} ${r.figures}`);
  const rows = results.flatMap((r) => r.table ?? []);
  if (rows.length) {
    lines.push(
      '',
      `${'kind'.padEnd(34)} ${'expected'.padStart(8)} ${'found'.padStart(8)} ${'missing'.padStart(8)} ${'extra'.padStart(8)}`,
    );
    for (const row of rows) {
      lines.push(
        `${row.kind.padEnd(34)} ${[row.expected, row.found, row.missing, row.extra].map((n) => String(n).padStart(8)).join(' ')}`,
      );
    }
    lines.push('');
  }
  const failed = results.filter((r) => r.failures.length);
  for (const r of failed) {
    lines.push(`${r.rule}: ${r.failures.length} failures`);
    for (const f of r.failures.slice(0, LISTED)) lines.push(`  - ${f}`);
    if (r.failures.length > LISTED) lines.push(`  … and ${r.failures.length - LISTED} more`);
  }
  return lines.join('\n');
}
