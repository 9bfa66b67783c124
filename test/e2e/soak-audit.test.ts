/**
 * The soak's audit rules (scripts/soak/audit.ts) on a ledger and an observation built by hand: a run
 * where everything arrived passes, and each planted loss or duplicate is named by its rule.
 */
import { describe, expect, it } from 'vitest';
import { audit, report } from '../../scripts/soak/audit.ts';
import type { Ledger, Observation, ReceivedCall } from '../../scripts/soak/ledger.ts';

const TENANT = 't-1';
const LEAD = 'lead-1';
const INQUIRY = 'inq-1';
const PROPERTY = 'prop-1';
const EVENTS = [
  { id: 'e1', type: 'lead.created', subjectId: LEAD, key: '' },
  { id: 'e2', type: 'inquiry.created', subjectId: INQUIRY, key: '' },
  { id: 'e3', type: 'lead.status_changed', subjectId: LEAD, key: 'new→contacted' },
  { id: 'e4', type: 'property.created', subjectId: PROPERTY, key: '' },
  { id: 'e5', type: 'property.price_changed', subjectId: PROPERTY, key: '1→2' },
  { id: 'e6', type: 'lead.scored', subjectId: LEAD, key: '' },
  { id: 'e8', type: 'lead.updated', subjectId: LEAD, key: 'status' },
  { id: 'e9', type: 'property.updated', subjectId: PROPERTY, key: 'enrichment_status,highlights' },
];
/** The interface's ladder at 1/2000 (30, 150, 900 ms, 3.6, 10.8, 21.6, 43.2, 43.2 s), from 1 s. */
const LADDER_TIMES = [0, 30, 180, 1_080, 4_680, 15_480, 37_080, 80_280, 123_480].map((at) => 1_000 + at);
/** What the driver's ledger expects of the changes above (scripts/soak/expected.ts writes these). */
const EXPECTED = [
  { type: 'lead.created', subjectId: LEAD, key: '', because: 'ingest' },
  { type: 'inquiry.created', subjectId: INQUIRY, key: '', because: 'ingest' },
  { type: 'lead.scored', subjectId: LEAD, key: '', because: 'ingest (scoring)' },
  { type: 'lead.updated', subjectId: LEAD, key: 'status', because: 'stage-move' },
  { type: 'lead.status_changed', subjectId: LEAD, key: 'new→contacted', because: 'stage-move' },
  { type: 'property.created', subjectId: PROPERTY, key: '', because: 'property-create' },
  { type: 'property.updated', subjectId: PROPERTY, key: 'includes:enrichment_status', because: 'enrichment' },
  { type: 'property.price_changed', subjectId: PROPERTY, key: '1→2', because: 'property-price' },
];

function ledger(): Ledger {
  return {
    seed: 1,
    minutes: 1,
    requests: { ingest: 2 },
    serverErrors: [],
    unanswered: 0,
    retries: {},
    kills: { api: 1, stream: 1, webhooks: 1 },
    goneSince: 0,
    retryDelayScale: 0.0005,
    doomed: { 'ep-ladder': ['e4'] },
    tenants: [
      {
        tenantId: TENANT,
        slug: 'soak-1',
        expectedEvents: EXPECTED.map((e) => ({ ...e })),
        scoringRuns: { [LEAD]: 1 },
        enriched: [PROPERTY],
        ownerEmails: { [LEAD]: 1 },
        disableNotices: 1,
        leads: {
          [LEAD]: {
            email: 'a@x.example',
            phone: '+34600000001',
            statusMoves: 1,
            status: 'contacted',
            archived: false,
          },
        },
        inquiries: [INQUIRY],
        properties: { [PROPERTY]: { priceChanges: 1, price: 2, archived: false } },
        imports: [{ propertyId: PROPERTY, importId: 'imp-1' }],
        replays: [
          {
            idempotencyKey: 'k',
            first: { status: 201, body: '{"a":1}' },
            second: { status: 201, body: '{"a":1}' },
          },
        ],
        concurrent: [{ email: 'a@x.example', leadIds: [LEAD, LEAD] }],
        endpoints: [
          { id: 'ep-healthy', receiver: 'healthy', secret: 's', events: ['lead.created', 'inquiry.created'] },
          { id: 'ep-flaky', receiver: 'flaky', secret: 's', events: ['lead.created'] },
          { id: 'ep-gone', receiver: 'gone', secret: 's', events: ['property.created'] },
          { id: 'ep-ladder', receiver: 'ladder', secret: 's', events: ['property.created'] },
        ],
      },
    ],
  };
}

const call = (endpointId: string, webhookId: string, at: number, answered = 200): ReceivedCall => ({
  endpointId,
  webhookId,
  eventType: '',
  verified: true,
  at,
  answered,
});

function observation(): Observation {
  return {
    tenants: {
      [TENANT]: {
        events: EVENTS.map((e) => ({ ...e })),
        leads: [{ id: LEAD, email: 'a@x.example', phone: '+34600000001', active: true }],
        inquiryIds: [INQUIRY],
        imports: { 'imp-1': 'ready' },
        endpoints: {
          'ep-healthy': { enabled: true, disabledReason: null, deliveries: [] },
          'ep-flaky': {
            enabled: true,
            disabledReason: null,
            deliveries: [
              { id: 'd1', eventId: 'e1', status: 'succeeded', attemptCount: 2, attemptTimes: [1, 2] },
            ],
          },
          'ep-gone': { enabled: false, disabledReason: 'gone', deliveries: [] },
          'ep-ladder': {
            enabled: true,
            disabledReason: null,
            deliveries: [
              { id: 'd2', eventId: 'e4', status: 'failed', attemptCount: 9, attemptTimes: LADDER_TIMES },
            ],
          },
        },
        aiRuns: 2,
        aiChargedReceipts: 2,
        scoreReceipts: { [LEAD]: 1 },
        enrichReceipts: 1,
        enrichment: { [PROPERTY]: 'enriched' },
        emails: [
          { to: 'owner@x.example', subject: 'New inquiry from A', leadId: LEAD },
          { to: 'admin@x.example', subject: 'Webhook endpoint disabled: https://gone', leadId: null },
        ],
      },
    },
    received: [
      call('ep-healthy', 'e1', 1),
      call('ep-healthy', 'e2', 2),
      call('ep-healthy', 'e2', 3),
      call('ep-flaky', 'e1', 1, 500),
      call('ep-flaky', 'e1', 2),
      call('ep-gone', 'e4', 10, 410),
      ...LADDER_TIMES.map((at) => call('ep-ladder', 'e4', at, 503)),
    ],
    deadLetters: [],
    parked: [],
    schedules: [
      { at: 1, kind: 'created', schedule: 'webhook-a' },
      { at: 2, kind: 'fired', schedule: 'webhook-a' },
    ],
  };
}

const failuresOf = (l: Ledger, o: Observation) => audit(l, o).flatMap((r) => r.failures);

describe('soak audit', () => {
  it('passes a run where every change produced its events and every event arrived', () => {
    // Act
    const results = audit(ledger(), observation());
    // Assess
    expect(results.flatMap((r) => r.failures)).toEqual([]);
    expect(report(results)).toContain('1 duplicates');
  });

  it('names an event the stream consumer acknowledged without writing', () => {
    // Prepare
    const seen = observation();
    const tenant = seen.tenants[TENANT];
    if (tenant) tenant.events = tenant.events.filter((e) => e.id !== 'e1');
    // Act
    const failures = failuresOf(ledger(), seen);
    // Assess
    expect(failures).toContain(`soak-1: missing lead.created for ${LEAD} after ingest`);
    expect(failures).toContain('soak-1: 0 lead.created but 1 Leads in the table');
  });

  it('names an event that never reached the healthy receiver, and one with a bad signature', () => {
    // Prepare
    const seen = observation();
    seen.received = seen.received.filter((c) => !(c.endpointId === 'ep-healthy' && c.webhookId === 'e1'));
    seen.received.push({ ...call('ep-healthy', 'e2', 4), verified: false });
    // Act
    const failures = failuresOf(ledger(), seen);
    // Assess
    expect(failures).toContain('soak-1: event e1 never reached healthy');
    expect(failures).toContain('soak-1: healthy got e2 with a bad signature');
  });

  it('names a call to the gone endpoint after its 410, and an endpoint left enabled', () => {
    // Prepare
    const seen = observation();
    seen.received.push(call('ep-gone', 'e4', 60_000));
    const gone = seen.tenants[TENANT]?.endpoints['ep-gone'];
    if (gone) gone.enabled = true;
    // Act
    const failures = failuresOf(ledger(), seen);
    // Assess
    expect(failures).toContain('soak-1: endpoint ep-gone answered 410 and is not disabled for it');
    expect(failures.some((f) => f.includes('sent to the gone endpoint 59990 ms after its 410'))).toBe(true);
  });

  it('names a duplicated Lead, a replay that ran again, a second score, uncharged AI and a dead letter', () => {
    // Prepare
    const l = ledger();
    const replay = l.tenants[0]?.replays[0];
    if (replay) replay.second = { status: 201, body: '{"a":2}' };
    const seen = observation();
    const tenant = seen.tenants[TENANT];
    if (tenant) {
      tenant.leads.push({ id: 'lead-2', email: 'A@x.example', phone: null, active: true });
      tenant.events.push({ id: 'e7', type: 'lead.scored', subjectId: LEAD, key: '' });
      tenant.aiRuns = 0;
    }
    seen.deadLetters.push({ queue: 'webhooks-dlq', id: 'm1', body: '{}' });
    // Act
    const failures = failuresOf(l, seen);
    // Assess
    expect(failures).toContain('soak-1: 2 Leads with email a@x.example');
    expect(failures).toContain('soak-1: Idempotency-Key k answered 201 after 201, bodies differ');
    expect(failures).toContain(`soak-1: lead.scored e7 for ${LEAD}: no change in the ledger explains it`);
    expect(failures).toContain('soak-1: AI spend counts 0 runs, 2 charged');
    expect(failures).toContain('dead letter on webhooks-dlq: m1 {}');
  });

  it('names an event with the wrong key fields, and a second event for one change under another id', () => {
    // Prepare
    const seen = observation();
    const tenant = seen.tenants[TENANT];
    if (tenant) {
      tenant.events = tenant.events.map((e) => (e.id === 'e3' ? { ...e, key: 'qualified→contacted' } : e));
      tenant.events.push({ id: 'e10', type: 'lead.updated', subjectId: LEAD, key: 'status' });
    }
    // Act
    const results = audit(ledger(), seen);
    const failures = results.flatMap((r) => r.failures);
    // Assess
    expect(failures).toContain(
      `soak-1: missing lead.status_changed for ${LEAD} (new→contacted) after stage-move; the log has qualified→contacted`,
    );
    expect(failures).toContain(
      `soak-1: lead.updated e10 for ${LEAD} (status): no change in the ledger explains it`,
    );
    const table = results.find((r) => r.rule === 'events per change')?.table ?? [];
    expect(table.find((row) => row.kind === 'lead.updated')).toEqual({
      kind: 'lead.updated',
      expected: 1,
      found: 2,
      missing: 0,
      extra: 1,
    });
  });

  it('names scoring, enrichment and an Owner email that never happened, or happened twice', () => {
    // Prepare
    const seen = observation();
    const tenant = seen.tenants[TENANT];
    if (tenant) {
      tenant.scoreReceipts = {};
      tenant.enrichReceipts = 0;
      tenant.enrichment = { [PROPERTY]: 'pending' };
      tenant.emails.push({ to: 'owner@x.example', subject: 'New inquiry from A', leadId: LEAD });
    }
    // Act
    const failures = failuresOf(ledger(), seen);
    // Assess
    expect(failures).toContain(`soak-1: scoring runs for ${LEAD}: 0 of 1`);
    expect(failures).toContain(`soak-1: listing ${PROPERTY} asked for enrichment and is pending`);
    expect(failures).toContain(`soak-1: Owner emails for ${LEAD}: 2, expected 1 (sent twice?)`);
  });

  it('names a delivery that did not walk the whole ladder: an attempt never sent, or a retry made early', () => {
    // Prepare
    const seen = observation();
    const ladder = seen.tenants[TENANT]?.endpoints['ep-ladder']?.deliveries[0];
    if (ladder) {
      // The third retry recorded 600 ms after the second, where the 30-minute rung, shrunk, is 900 ms.
      ladder.attemptTimes = LADDER_TIMES.map((at, i) => (i === 3 ? (LADDER_TIMES[2] ?? 0) + 600 : at));
    }
    const sixth = seen.received.find((c) => c.endpointId === 'ep-ladder' && c.at === LADDER_TIMES[5]);
    seen.received = seen.received.filter((c) => c !== sixth);
    // Act
    const failures = failuresOf(ledger(), seen);
    // Assess
    const named = failures.find((f) => f.startsWith('soak-1: e4 did not walk the ladder'));
    expect(named).toContain('retry 3 after 600 ms, before its 900 ms wait');
    expect(named).toContain(
      `the attempt recorded at ${new Date(LADDER_TIMES[5] ?? 0).toISOString()} never reached the receiver`,
    );
  });

  it('names a delivery given up early, and counts a call no recorded attempt accounts for as a repeat', () => {
    // Prepare
    const seen = observation();
    seen.received.push(call('ep-ladder', 'e4', (LADDER_TIMES[3] ?? 0) + 5, 503));
    const given = observation();
    const ladder = given.tenants[TENANT]?.endpoints['ep-ladder']?.deliveries[0];
    if (ladder) {
      ladder.attemptCount = 4;
      ladder.attemptTimes = LADDER_TIMES.slice(0, 4);
    }
    // Act
    const repeated = audit(ledger(), seen);
    const early = failuresOf(ledger(), given);
    // Assess
    expect(repeated.flatMap((r) => r.failures)).toEqual([]);
    expect(repeated.find((r) => r.rule === 'ladder walked')?.duplicates).toEqual({
      'a ladder attempt received again': 1,
    });
    expect(early.find((f) => f.startsWith('soak-1: e4 did not walk the ladder'))).toContain(
      'delivery failed after 4 attempts',
    );
  });

  it('names a rung handed to the Scheduler that never fired', () => {
    // Prepare
    const seen = observation();
    seen.schedules.push(
      { at: 3, kind: 'created', schedule: 'webhook-b' },
      { at: 4, kind: 'lost', schedule: 'webhook-b' },
    );
    // Act
    const failures = failuresOf(ledger(), seen);
    // Assess
    expect(failures).toEqual(['schedule webhook-b was created and never fired']);
  });
});
