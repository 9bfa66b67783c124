import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { getActivity } from '../../functions/data/activities.ts';
import { Agent } from '../../functions/data/entities/agent.ts';
import { Tenant } from '../../functions/data/entities/tenant.ts';
import { BACKFILL_THRESHOLD_DAYS } from '../../functions/domain/leads.ts';
import { type QueueName, setQueue } from '../../functions/kernel/ports/queue.ts';
import { listLinkedListings } from '../../functions/services/lead-listings.ts';
import { bindLocalAdapters } from '../../scripts/local/adapters/index.ts';
import { listOutbox } from '../../scripts/local/adapters/outbox-email.ts';
import { locs } from '../support/api-client.ts';
import { afterIndexLag } from '../support/eventually.ts';
import { createTestAgent, createTestTenant, type TestTenant, unique } from '../support/factories.ts';
import { startTestApi, type TestApi } from '../support/http.ts';
import { type FollowingStreamConsumer, startFollowingStreamConsumer } from '../support/reactions.ts';

type Call = Awaited<ReturnType<TestApi['call']>>;

let api: TestApi;
let tenant: TestTenant;
/** Emails and scoring requests are stream reactions: the real consumer runs them for these Tenants. */
let reactions: FollowingStreamConsumer;

/** Waits (polling) until `assertion` holds: a reaction runs after the answer. */
const eventually = <T>(assertion: () => T | Promise<T>) =>
  vi.waitFor(assertion, { timeout: 20_000, interval: 100 });

/** A Tenant whose changes the stream consumer follows. */
async function followedTenant(): Promise<TestTenant> {
  const made = await createTestTenant();
  reactions.follow(made.tenantId);
  return made;
}

/** Scoring requests the service queued, captured instead of sent. */
const queued: { queue: QueueName; message: { type: string; tenantId: string; leadId: string } }[] = [];

beforeAll(async () => {
  reactions = await startFollowingStreamConsumer();
  tenant = await followedTenant();
  await Tenant.patch({ tenantId: tenant.tenantId }).set({ defaultCountry: 'ES' }).go();
  api = await startTestApi(tenant.key);
  setQueue({
    send: async (queue, message) => {
      queued.push({ queue, message: message as (typeof queued)[number]['message'] });
    },
  });
});
afterAll(async () => {
  reactions.stop();
  bindLocalAdapters();
  await api.close();
});
afterEach(() => {
  queued.length = 0;
});

const email = (prefix = 'person') => `${unique(prefix)}@example.com`;
function ingest(
  body: Record<string, unknown>,
  options: { key?: string; headers?: Record<string, string> } = {},
) {
  return api.call('POST', '/v1/leads:ingest', { key: options.key ?? tenant.key, body, ...options });
}

const event = (person: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  source: 'idealista',
  type: 'inquiry',
  person: { name: 'Carmen Ruiz', ...person },
  ...extra,
});

async function createListing(body: Record<string, unknown>, key = tenant.key) {
  const res = await api.call('POST', '/v1/properties', { key, body });
  expect(res.status, res.text).toBe(201);
  return res.body as { id: string; slug: string; title: string; internal_ref: string | null };
}

const daysAgo = (days: number) => new Date(Date.now() - days * 86_400_000).toISOString();

describe('POST /v1/leads:ingest', () => {
  it('creates a Lead (201, source api) and an Inquiry from an inquiry, with all four fields', async () => {
    // Prepare
    const address = email();
    // Act
    const res = await ingest(
      event(
        { email: address.toUpperCase(), phone: '655 000 111', locale: 'es-ES' },
        { campaign: 'spring-2026', message: 'Is it still available?' },
      ),
    );
    // Assess
    expect(res.status).toBe(201);
    expect(Object.keys(res.body).sort()).toEqual(['activity_id', 'inquiry_id', 'lead', 'warnings']);
    expect(res.body.lead).toMatchObject({
      name: 'Carmen Ruiz',
      email: address,
      phone: '+34655000111',
      locale: 'es-ES',
      source: 'api',
      status: 'new',
      campaign: 'spring-2026',
      is_active: true,
    });
    expect(res.body.activity_id).toBeNull();
    expect(res.body.warnings).toEqual([]);
    const inquiry = await api.call('GET', `/v1/inquiries/${res.body.inquiry_id}`);
    expect(inquiry.status).toBe(200);
    expect(inquiry.body).toEqual({
      id: res.body.inquiry_id,
      lead_id: res.body.lead.id,
      property_id: null,
      channel: 'form',
      // Not from a website's form: no widget, no page.
      via: null,
      page_url: null,
      message: 'Is it still available?',
      source: 'idealista',
      campaign: 'spring-2026',
      occurred_at: expect.any(String),
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    await eventually(() =>
      expect(queued.filter((q) => q.message.leadId === res.body.lead.id)).toEqual([
        {
          queue: 'ai',
          message: {
            type: 'score',
            tenantId: tenant.tenantId,
            leadId: res.body.lead.id,
            requestedAt: res.body.lead.updated_at,
            inquiryId: res.body.inquiry_id,
          },
        },
      ]),
    );
  });

  it('records an Inquiry for a registration too (scored), and an Activity (note) for a note', async () => {
    // Prepare
    const address = email();
    // Act
    const registration = await ingest(event({ email: address }, { type: 'registration' }));
    await eventually(() =>
      expect(queued.filter((q) => q.message.leadId === registration.body.lead.id)).toHaveLength(1),
    );
    const note = await ingest(
      event({ email: address }, { type: 'note', message: 'Called back, wants a visit' }),
    );
    // Assess
    expect(registration.status).toBe(201);
    expect(registration.body.inquiry_id).toEqual(expect.any(String));
    expect(note.status).toBe(200);
    expect(note.body.lead.id).toBe(registration.body.lead.id);
    expect(note.body.inquiry_id).toBeNull();
    expect(note.body.activity_id).toEqual(expect.any(String));
    const activity = await getActivity(tenant.tenantId, note.body.activity_id);
    expect(activity).toMatchObject({
      kind: 'note',
      leadId: registration.body.lead.id,
      body: 'Called back, wants a visit',
      completed: false,
    });
    // A note asks for no scoring: test/int/reactions.test.ts shows the reaction passes it over.
  });

  it('creates the Lead of a note from a new contact together with its note Activity (201)', async () => {
    // Act
    const res = await ingest(
      event({ email: email('note') }, { type: 'note', message: 'Met at the open house' }),
    );
    // Assess
    expect(res.status).toBe(201);
    expect(res.body.inquiry_id).toBeNull();
    const activity = await getActivity(tenant.tenantId, res.body.activity_id);
    expect(activity).toMatchObject({
      kind: 'note',
      leadId: res.body.lead.id,
      title: 'Note from idealista',
      body: 'Met at the open house',
    });
    expect(activity?.createdAt).toBe(res.body.lead.created_at);
  });

  it('updates the Lead a repeated email or phone names (200): fills what it lacks, keeps its name, adds an Inquiry', async () => {
    // Prepare
    const address = email();
    const first = await ingest(event({ email: address, name: 'First Name' }));
    // Act
    const byEmail = await ingest(
      event({ email: ` ${address} `, name: 'Other Name', phone: '+34 666 777 888' }),
    );
    const byPhone = await ingest(event({ phone: '666777888', name: 'Third', locale: 'en' }));
    // Assess
    expect(byEmail.status).toBe(200);
    expect(byPhone.status).toBe(200);
    expect(byEmail.body.lead).toMatchObject({
      id: first.body.lead.id,
      name: 'First Name',
      phone: '+34666777888',
    });
    expect(byPhone.body.lead).toMatchObject({ id: first.body.lead.id, email: address, locale: 'en' });
    await afterIndexLag(); // a list read through an index, after the writes
    const inquiries = await api.call('GET', `/v1/inquiries?lead_id=${first.body.lead.id}`);
    expect(inquiries.body.data).toHaveLength(3);
  });

  it('makes exactly one Lead from 20 concurrent ingests with one email, with 20 Inquiries', async () => {
    // Prepare
    const address = email('race');
    // Act
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        ingest(event({ email: address, name: `Racer ${i}` }, { message: `#${i}` })),
      ),
    );
    // Assess
    expect(results.filter((r) => r.status === 201)).toHaveLength(1);
    expect(results.filter((r) => r.status === 200)).toHaveLength(19);
    const leadIds = new Set(results.map((r) => r.body.lead.id));
    expect(leadIds.size).toBe(1);
    const [leadId] = [...leadIds];
    await afterIndexLag(); // a list read through an index, after the writes
    const inquiries = await api.call('GET', `/v1/inquiries?lead_id=${leadId}&limit=200`);
    expect(inquiries.body.data).toHaveLength(20);
    await afterIndexLag(); // a list read through an index, after the writes
    const found = await api.call('GET', `/v1/leads?q=${encodeURIComponent(address)}`);
    expect(found.body.data.map((l: { id: string }) => l.id)).toEqual([leadId]);
  });

  it(`gives a new Lead source import when the event is older than ${BACKFILL_THRESHOLD_DAYS} days, api otherwise`, async () => {
    // Act
    const old = await ingest(
      event({ email: email() }, { occurred_at: daysAgo(BACKFILL_THRESHOLD_DAYS + 23) }),
    );
    const recent = await ingest(
      event({ email: email() }, { occurred_at: daysAgo(BACKFILL_THRESHOLD_DAYS - 1) }),
    );
    const repeat = await ingest(event({ email: old.body.lead.email }));
    const naive = await ingest(event({ email: email() }, { occurred_at: '2026-01-01T10:00:00' }));
    // Assess
    expect(old.status).toBe(201);
    expect(old.body.lead.source).toBe('import');
    expect(recent.body.lead.source).toBe('api');
    expect(repeat.body.lead.source).toBe('import');
    const inquiry = await api.call('GET', `/v1/inquiries/${old.body.inquiry_id}`);
    expect(Date.parse(inquiry.body.occurred_at)).toBeLessThan(Date.now() - 29 * 86_400_000);
    expect(naive.status).toBe(422);
    expect(locs(naive)).toEqual([['body', 'occurred_at']]);
  });

  it('replays an Idempotency-Key: the first answer, once', async () => {
    // Prepare
    const body = event({ email: email() }, { message: 'once' });
    const headers = { 'Idempotency-Key': unique('idem') };
    // Act
    const first = await ingest(body, { headers });
    const replay = await ingest(body, { headers });
    // Assess
    expect(first.status).toBe(201);
    expect(replay.status).toBe(201);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.body).toEqual(first.body);
    await afterIndexLag(); // a list read through an index, after the writes
    const inquiries = await api.call('GET', `/v1/inquiries?lead_id=${first.body.lead.id}`);
    expect(inquiries.body.data).toHaveLength(1);
  });

  it('names the field of every bound it breaks (422) and writes nothing', async () => {
    // Prepare
    const address = email('bad');
    const cases: [Record<string, unknown>, unknown[]][] = [
      [event({ email: undefined }), ['body', 'person']],
      [event({ email: null, phone: null }), ['body', 'person']],
      [
        event({ email: address }, { agent_id: randomUUID(), agent_email: 'a@example.com' }),
        ['body', 'agent_email'],
      ],
      [event({ email: address, name: '' }), ['body', 'person', 'name']],
      [event({ email: address, name: 'n'.repeat(256) }), ['body', 'person', 'name']],
      [event({ email: `${'e'.repeat(309)}@example.com` }), ['body', 'person', 'email']],
      [event({ email: 'nope' }), ['body', 'person', 'email']],
      [event({ phone: '6'.repeat(51) }), ['body', 'person', 'phone']],
      [event({ phone: '123' }), ['body', 'person', 'phone']],
      [event({ email: address, locale: 'l'.repeat(36) }), ['body', 'person', 'locale']],
      [{ ...event({ email: address }), source: '' }, ['body', 'source']],
      [{ ...event({ email: address }), source: 's'.repeat(256) }, ['body', 'source']],
      [event({ email: address }, { campaign: 'c'.repeat(256) }), ['body', 'campaign']],
      [event({ email: address }, { type: 'call' }), ['body', 'type']],
      [event({ email: address }, { property_id: 'nope' }), ['body', 'property_id']],
      [event({ email: address }, { property_ref: '' }), ['body', 'property_ref']],
      [event({ email: address }, { agent_email: `${'a'.repeat(315)}@x.com` }), ['body', 'agent_email']],
      [{ type: 'inquiry', source: 'x' }, ['body', 'person']],
    ];
    // Act
    const results = await Promise.all(cases.map(([body]) => ingest(body)));
    // Assess
    results.forEach((res, i) => {
      expect(res.status, JSON.stringify(cases[i]?.[0])).toBe(422);
      expect(locs(res)).toContainEqual(cases[i]?.[1]);
    });
    await afterIndexLag(); // a list read through an index, after the writes
    const found = await api.call('GET', `/v1/leads?q=${encodeURIComponent(address)}&include_archived=true`);
    // Nothing written: no Lead, so nothing for a reaction to score or email.
    expect(found.body.data).toEqual([]);
  });

  it('needs leads:write', async () => {
    const reader = await tenant.newKey(['leads:read']);
    const res = await ingest(event({ email: email() }), { key: reader.key });
    expect(res.status).toBe(403);
  });

  it('is not mistaken for /v1/leads/{lead_id}', async () => {
    expect((await api.call('GET', '/v1/leads:ingest')).status).toBe(405);
    expect((await api.call('PATCH', '/v1/leads:ingest', { body: {} })).status).toBe(405);
  });
});

describe('listings named by an event', () => {
  let agent: { id: string; email: string };
  let listing: { id: string; slug: string; title: string };
  let retiredSlug: string;

  beforeAll(async () => {
    agent = await createTestAgent(tenant.tenantId, 'Listing Agent');
    const created = await createListing({
      title: `Casa Azul ${unique('c')}`,
      agent_id: agent.id,
      internal_ref: unique('REF'),
    });
    retiredSlug = created.slug;
    const renamed = await api.call('PATCH', `/v1/properties/${created.id}`, {
      body: { title: `Casa Verde ${unique('v')}` },
    });
    expect(renamed.body.slug).not.toBe(retiredSlug);
    listing = renamed.body;
  });

  it('links the Inquiry to property_id; the listing agent becomes the Owner and gets an email about it', async () => {
    // Prepare
    const address = email('buyer');
    // Act
    const res = await ingest(
      event(
        { email: address, phone: '+34 699 111 222', name: 'Lucía Buyer' },
        { property_id: listing.id, message: 'Can I visit on Saturday?' },
      ),
    );
    // Assess
    expect(res.status).toBe(201);
    expect(res.body.warnings).toEqual([]);
    expect(res.body.lead.assigned_agent_id).toBe(agent.id);
    const inquiry = await api.call('GET', `/v1/inquiries/${res.body.inquiry_id}`);
    expect(inquiry.body.property_id).toBe(listing.id);
    const links = await listLinkedListings(tenant.tenantId, res.body.lead.id);
    expect(links.map((l) => [l.link.propertyId, l.link.role, l.link.source])).toEqual([
      [listing.id, 'interested', 'inquiry'],
    ]);
    const mail = await eventually(async () => {
      const sent = (await listOutbox(tenant.tenantId)).filter((m) => m.text.includes(res.body.lead.id));
      expect(sent).toHaveLength(1);
      return sent;
    });
    expect(mail[0]).toMatchObject({
      to: agent.email,
      subject: `New inquiry from Lucía Buyer about "${listing.title}"`,
    });
    for (const part of [address, '+34699111222', 'Can I visit on Saturday?', listing.title, 'idealista']) {
      expect(mail[0]?.text).toContain(part);
    }
  });

  it('finds the listing by slug, by retired slug and by internal_ref', async () => {
    // Act
    const results = await Promise.all(
      [listing.slug, retiredSlug, (listing as { internal_ref?: string }).internal_ref ?? ''].map((ref) =>
        ingest(event({ email: email() }, { property_ref: ref })),
      ),
    );
    // Assess
    for (const res of results) {
      expect(res.status).toBe(201);
      expect(res.body.warnings).toEqual([]);
      expect((await api.call('GET', `/v1/inquiries/${res.body.inquiry_id}`)).body.property_id).toBe(
        listing.id,
      );
    }
  });

  it('warns property_not_found, property_ref_unmatched and property_ref_ambiguous, and still records the event', async () => {
    // Prepare: a listing whose internal_ref is another listing's slug
    const other = await createListing({ title: `Other ${unique('o')}`, internal_ref: listing.slug });
    // Act
    const notFound = await ingest(event({ email: email() }, { property_id: randomUUID() }));
    const unmatched = await ingest(event({ email: email() }, { property_ref: unique('no-such-ref') }));
    const ambiguous = await ingest(event({ email: email() }, { property_ref: listing.slug }));
    // Assess
    expect(other.internal_ref).toBe(listing.slug);
    for (const [res, code] of [
      [notFound, 'property_not_found'],
      [unmatched, 'property_ref_unmatched'],
      [ambiguous, 'property_ref_ambiguous'],
    ] as const) {
      expect(res.status).toBe(201);
      expect(res.body.warnings).toEqual([{ code, detail: expect.any(String) }]);
      expect(res.body.inquiry_id).toEqual(expect.any(String));
      expect((await api.call('GET', `/v1/inquiries/${res.body.inquiry_id}`)).body.property_id).toBeNull();
    }
  });

  it("does not find another tenant's listing", async () => {
    const other = await createTestTenant();
    const theirs = await createListing({ title: 'Theirs', internal_ref: unique('THEIRS') }, other.key);
    const byId = await ingest(event({ email: email() }, { property_id: theirs.id }));
    const byRef = await ingest(event({ email: email() }, { property_ref: theirs.internal_ref }));
    expect(byId.body.warnings.map((w: { code: string }) => w.code)).toEqual(['property_not_found']);
    expect(byRef.body.warnings.map((w: { code: string }) => w.code)).toEqual(['property_ref_unmatched']);
  });
});

describe('the Lead Owner', () => {
  it('is the named Agent (agent_id or agent_email) when the listing has none', async () => {
    // Prepare
    const own = await createTestTenant();
    const [a, b] = await Promise.all([createTestAgent(own.tenantId), createTestAgent(own.tenantId)]);
    const unowned = await createListing({ title: 'No agent' }, own.key);
    // Act
    const byId = await ingest(event({ email: email() }, { agent_id: b.id, property_id: unowned.id }), {
      key: own.key,
    });
    const byEmail = await ingest(event({ email: email() }, { agent_email: ` ${a.email.toUpperCase()} ` }), {
      key: own.key,
    });
    // Assess
    expect(byId.body.lead.assigned_agent_id).toBe(b.id);
    expect(byEmail.body.lead.assigned_agent_id).toBe(a.id);
    expect(byId.body.warnings).toEqual([]);
  });

  it("is the listing's Agent even when another Agent is named", async () => {
    const own = await createTestTenant();
    const [listingAgent, named] = await Promise.all([
      createTestAgent(own.tenantId),
      createTestAgent(own.tenantId),
    ]);
    const home = await createListing({ title: 'Owned', agent_id: listingAgent.id }, own.key);
    const res = await ingest(event({ email: email() }, { property_id: home.id, agent_id: named.id }), {
      key: own.key,
    });
    expect(res.body.lead.assigned_agent_id).toBe(listingAgent.id);
  });

  it('warns agent_unmatched for an Agent the tenant does not have, and falls back to round-robin', async () => {
    // Prepare
    const own = await createTestTenant();
    const only = await createTestAgent(own.tenantId);
    // Act
    const byId = await ingest(event({ email: email() }, { agent_id: randomUUID() }), { key: own.key });
    const byEmail = await ingest(event({ email: email() }, { agent_email: 'nobody@example.com' }), {
      key: own.key,
    });
    // Assess
    for (const res of [byId, byEmail]) {
      expect(res.status).toBe(201);
      expect(res.body.warnings).toEqual([{ code: 'agent_unmatched', detail: expect.any(String) }]);
      expect(res.body.lead.assigned_agent_id).toBe(only.id);
    }
  });

  it('spreads concurrent new Leads evenly over the active Agents: 12 over 3 is 4 each, and each is emailed', async () => {
    // Prepare
    const own = await followedTenant();
    const agents = await Promise.all([1, 2, 3].map((i) => createTestAgent(own.tenantId, `Agent ${i}`)));
    // Act
    const results = await Promise.all(
      Array.from({ length: 12 }, (_, i) => ingest(event({ email: email(`rr${i}`) }), { key: own.key })),
    );
    // Assess
    expect(results.every((r) => r.status === 201)).toBe(true);
    const counts = new Map<string, number>();
    for (const r of results)
      counts.set(r.body.lead.assigned_agent_id, (counts.get(r.body.lead.assigned_agent_id) ?? 0) + 1);
    expect([...counts.keys()].sort()).toEqual(agents.map((a) => a.id).sort());
    expect([...counts.values()]).toEqual([4, 4, 4]);
    await eventually(async () => {
      const outbox = await listOutbox(own.tenantId);
      for (const agent of agents) expect(outbox.filter((m) => m.to === agent.email)).toHaveLength(4);
    });
  });

  it('takes turns in agent-id order, skipping inactive Agents; no active Agent leaves the Lead Unassigned', async () => {
    // Prepare
    const own = await createTestTenant();
    const agents = await Promise.all([1, 2, 3, 4].map((i) => createTestAgent(own.tenantId, `Agent ${i}`)));
    const [retired, ...active] = agents;
    await Agent.patch({ tenantId: own.tenantId, id: retired?.id ?? '' })
      .set({ isActive: false })
      .go();
    const byId = [...active].sort((x, y) => (x.id < y.id ? -1 : 1));
    const empty = await createTestTenant();
    // Act
    const owners: string[] = [];
    for (let i = 0; i < 4; i++) {
      owners.push((await ingest(event({ email: email() }), { key: own.key })).body.lead.assigned_agent_id);
    }
    const none = await ingest(event({ email: email() }), { key: empty.key });
    // Assess
    expect(owners).toEqual([byId[0]?.id, byId[1]?.id, byId[2]?.id, byId[0]?.id]);
    expect(none.status).toBe(201);
    expect(none.body.lead.assigned_agent_id).toBeNull();
    expect(await listOutbox(empty.tenantId)).toEqual([]);
  });

  it('keeps an existing Owner and emails them; gives an Unassigned Lead one', async () => {
    // Prepare
    const own = await followedTenant();
    const [keeper, other] = await Promise.all([createTestAgent(own.tenantId), createTestAgent(own.tenantId)]);
    const kept = await api.call('POST', '/v1/leads', {
      key: own.key,
      body: { name: 'Kept', email: email(), assigned_agent_id: keeper.id },
    });
    const loose = await api.call('POST', '/v1/leads', {
      key: own.key,
      body: { name: 'Loose', email: email(), assigned_agent_id: null },
    });
    // Act
    const again = await ingest(
      event({ email: kept.body.email }, { agent_id: other.id, message: 'Back again' }),
      {
        key: own.key,
      },
    );
    const assigned = await ingest(event({ email: loose.body.email }, { agent_id: other.id }), {
      key: own.key,
    });
    // Assess
    expect(again.status).toBe(200);
    expect(again.body.lead.assigned_agent_id).toBe(keeper.id);
    expect(assigned.status).toBe(200);
    expect(assigned.body.lead.assigned_agent_id).toBe(other.id);
    await eventually(async () => {
      const outbox = await listOutbox(own.tenantId);
      expect(outbox.filter((m) => m.to === keeper.email && m.text.includes('Back again'))).toHaveLength(1);
      expect(
        outbox.filter((m) => m.to === other.email && m.subject.startsWith('New inquiry from')),
      ).toHaveLength(1);
    });
  });
});

describe('GET /v1/inquiries', () => {
  let own: TestTenant;
  let leadA: string;
  let leadB: string;
  let home: string;
  const inquiryIds: string[] = [];

  beforeAll(async () => {
    own = await createTestTenant();
    home = (await createListing({ title: 'Asked about' }, own.key)).id;
    const a = email('a');
    const b = email('b');
    for (const [address, withHome] of [
      [a, true],
      [a, false],
      [b, true],
      [a, true],
      [b, false],
    ] as const) {
      const res = await ingest(event({ email: address }, withHome ? { property_id: home } : {}), {
        key: own.key,
      });
      inquiryIds.push(res.body.inquiry_id);
      if (address === a) leadA = res.body.lead.id;
      else leadB = res.body.lead.id;
    }
    await afterIndexLag(); // the lists below read indexes: set up before they are asked
  });

  const list = (query: string) => api.call('GET', `/v1/inquiries?${query}`, { key: own.key });
  const got = (res: Call) => (res.body.data as { id: string }[]).map((i) => i.id).sort();
  const pick = (...indexes: number[]) => indexes.map((i) => inquiryIds[i]).sort();

  it('lists every Inquiry of the tenant in (updated_at, id) order, paged', async () => {
    // Act
    const first = await list('limit=2');
    const second = await list(`limit=2&cursor=${encodeURIComponent(first.body.next_cursor)}`);
    const third = await list(`limit=2&cursor=${encodeURIComponent(second.body.next_cursor)}`);
    // Assess
    const all = [...first.body.data, ...second.body.data, ...third.body.data];
    expect(all.map((i: { id: string }) => i.id)).toEqual(inquiryIds);
    expect(third.body.next_cursor).toBeNull();
  });

  it('filters by lead_id, property_id, or both', async () => {
    expect(got(await list(`lead_id=${leadA}`))).toEqual(pick(0, 1, 3));
    expect(got(await list(`property_id=${home}`))).toEqual(pick(0, 2, 3));
    expect(got(await list(`lead_id=${leadB}&property_id=${home}`))).toEqual(pick(2));
    expect(got(await list(`lead_id=${randomUUID()}`))).toEqual([]);
  });

  it('keeps Inquiries updated since a time with an offset', async () => {
    const third = await api.call('GET', `/v1/inquiries/${inquiryIds[2]}`, { key: own.key });
    const since = await list(`updated_since=${encodeURIComponent(third.body.updated_at)}`);
    expect(got(since)).toEqual(pick(2, 3, 4));
  });

  it('refuses bad filters, limits and cursors with 422', async () => {
    const first = await list('limit=1');
    const results = await Promise.all([
      list('lead_id=nope'),
      list('property_id=nope'),
      list('limit=201'),
      list('updated_since=2026-01-01'),
      list(`lead_id=${leadA}&limit=1&cursor=${encodeURIComponent(first.body.next_cursor)}`),
      list(`limit=1&cursor=${encodeURIComponent(`${first.body.next_cursor}x`)}`),
    ]);
    expect(results.map((r) => r.status)).toEqual([422, 422, 422, 422, 422, 422]);
    expect(results.map((r) => locs(r)[0]?.[1])).toEqual([
      'lead_id',
      'property_id',
      'limit',
      'updated_since',
      'cursor',
      'cursor',
    ]);
  });

  it("answers 404 for an unknown or another tenant's Inquiry and 422 for a non-UUID", async () => {
    const [unknown, foreign, malformed] = await Promise.all([
      api.call('GET', `/v1/inquiries/${randomUUID()}`, { key: own.key }),
      api.call('GET', `/v1/inquiries/${inquiryIds[0]}`, { key: tenant.key }),
      api.call('GET', '/v1/inquiries/nope', { key: own.key }),
    ]);
    expect(unknown.status).toBe(404);
    expect(foreign.status).toBe(404);
    expect(malformed.status).toBe(422);
    await afterIndexLag(); // a list read through an index, after the writes
    expect(got(await api.call('GET', `/v1/inquiries?lead_id=${leadA}`, { key: tenant.key }))).toEqual([]);
  });

  it('needs leads:read', async () => {
    const key = await own.newKey(['activities:read']);
    await afterIndexLag(); // a list read through an index, after the writes
    expect((await api.call('GET', '/v1/inquiries', { key: key.key })).status).toBe(403);
  });
});
