/**
 * The soak's audit (issue 24, point 4): rules that compare the driver's ledger with what was read
 * back once the stack drained. Each rule is a pure function of the two and returns its figures and
 * its failures (a loss, a duplicate that must not be, a mismatch), so that a test can plant a loss in
 * either and see it named.
 */
import type {
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

/** Events of `type` about `subjectId`, in a Tenant's log. */
function eventsAbout(events: readonly ObservedEvent[], type: string, subjectId: string): number {
  return events.filter((e) => e.type === type && e.subjectId === subjectId).length;
}

/**
 * Every committed change produced exactly the events the interface defines: one `lead.created` per
 * Lead, one `inquiry.created` per Inquiry, one `property.created` per listing, one
 * `lead.status_changed` per status move and `property.price_changed` per price change the driver
 * made, one `*.archived` per archive; the log and the table agree on Leads and Inquiries; event ids
 * are unique; no Lead is scored more often than its scoring requests were charged.
 */
export function eventsPerChange(ledger: Ledger, observation: Observation): RuleResult {
  const failures: string[] = [];
  const all: ObservedEvent[] = [];
  for (const tenant of ledger.tenants) {
    const seen = observedOf(observation, tenant);
    if (!seen) {
      failures.push(`${tenant.slug}: nothing read back`);
      continue;
    }
    const { events } = seen;
    all.push(...events);
    const expectOne = (type: string, id: string, want: number) => {
      const got = eventsAbout(events, type, id);
      if (got < want) failures.push(`${tenant.slug}: missing ${type} for ${id} (${got} of ${want})`);
      if (got > want) failures.push(`${tenant.slug}: ${got} ${type} for ${id}, expected ${want}`);
    };
    for (const [id, lead] of Object.entries(tenant.leads)) {
      expectOne('lead.created', id, 1);
      expectOne('lead.archived', id, lead.archived ? 1 : 0);
      expectOne('lead.status_changed', id, lead.statusMoves);
    }
    for (const id of tenant.inquiries) expectOne('inquiry.created', id, 1);
    for (const [id, property] of Object.entries(tenant.properties)) {
      expectOne('property.created', id, 1);
      expectOne('property.archived', id, property.archived ? 1 : 0);
      expectOne('property.price_changed', id, property.priceChanges);
    }
    const byType = countBy(events, (e) => e.type);
    const created = byType.get('lead.created') ?? 0;
    if (created !== seen.leads.length) {
      failures.push(`${tenant.slug}: ${created} lead.created but ${seen.leads.length} Leads in the table`);
    }
    const inquiries = byType.get('inquiry.created') ?? 0;
    if (inquiries !== seen.inquiryIds.length) {
      failures.push(
        `${tenant.slug}: ${inquiries} inquiry.created but ${seen.inquiryIds.length} Inquiries in the table`,
      );
    }
    const scored = countBy(
      events.filter((e) => e.type === 'lead.scored'),
      (e) => e.subjectId,
    );
    for (const [leadId, count] of scored) {
      const requests = seen.scoreReceipts[leadId] ?? 0;
      if (count > requests)
        failures.push(`${tenant.slug}: lead.scored ${count}× for ${requests} requests of ${leadId}`);
    }
  }
  const repeated = [...countBy(all, (e) => e.id)].filter(([, n]) => n > 1);
  for (const [id, n] of repeated) failures.push(`event id ${id} appears ${n} times`);
  const byType = [...countBy(all, (e) => e.type)].sort(([a], [b]) => a.localeCompare(b));
  return {
    rule: 'events per change',
    figures: `${all.length} events (${byType.map(([t, n]) => `${t} ${n}`).join(', ')})`,
    failures,
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
    figures: `${expectedTotal} expected, ${unique} unique webhook-ids, ${duplicates} duplicates`,
    failures,
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
  return { rule: 'photo imports', figures: `${ready} of ${total} ready`, failures };
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
  healthyReceiver,
  flakyReceiver,
  goneReceiver,
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
  const failed = results.filter((r) => r.failures.length);
  for (const r of failed) {
    lines.push(`${r.rule}: ${r.failures.length} failures`);
    for (const f of r.failures.slice(0, LISTED)) lines.push(`  - ${f}`);
    if (r.failures.length > LISTED) lines.push(`  … and ${r.failures.length - LISTED} more`);
  }
  return lines.join('\n');
}
