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
  { id: 'e1', type: 'lead.created', subjectId: LEAD },
  { id: 'e2', type: 'inquiry.created', subjectId: INQUIRY },
  { id: 'e3', type: 'lead.status_changed', subjectId: LEAD },
  { id: 'e4', type: 'property.created', subjectId: PROPERTY },
  { id: 'e5', type: 'property.price_changed', subjectId: PROPERTY },
  { id: 'e6', type: 'lead.scored', subjectId: LEAD },
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
    tenants: [
      {
        tenantId: TENANT,
        slug: 'soak-1',
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
            deliveries: [{ eventId: 'e1', status: 'succeeded', attemptCount: 2 }],
          },
          'ep-gone': { enabled: false, disabledReason: 'gone', deliveries: [] },
        },
        aiRuns: 1,
        aiChargedReceipts: 1,
        scoreReceipts: { [LEAD]: 1 },
      },
    },
    received: [
      call('ep-healthy', 'e1', 1),
      call('ep-healthy', 'e2', 2),
      call('ep-healthy', 'e2', 3),
      call('ep-flaky', 'e1', 1, 500),
      call('ep-flaky', 'e1', 2),
      call('ep-gone', 'e4', 10, 410),
    ],
    deadLetters: [],
    parked: [],
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
    expect(failures).toContain(`soak-1: missing lead.created for ${LEAD} (0 of 1)`);
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
      tenant.events.push({ id: 'e7', type: 'lead.scored', subjectId: LEAD });
      tenant.aiRuns = 0;
    }
    seen.deadLetters.push({ queue: 'webhooks-dlq', id: 'm1', body: '{}' });
    // Act
    const failures = failuresOf(l, seen);
    // Assess
    expect(failures).toContain('soak-1: 2 Leads with email a@x.example');
    expect(failures).toContain('soak-1: Idempotency-Key k answered 201 after 201, bodies differ');
    expect(failures).toContain(`soak-1: lead.scored 2× for 1 requests of ${LEAD}`);
    expect(failures).toContain('soak-1: AI spend counts 0 runs, 1 charged');
    expect(failures).toContain('dead letter on webhooks-dlq: m1 {}');
  });
});
