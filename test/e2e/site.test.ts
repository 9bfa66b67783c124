import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listingViewCount } from '../../functions/data/listing-views.ts';
import { resetConfig } from '../../functions/kernel/config.ts';
import { TURNSTILE_DUMMY_TOKEN } from '../../functions/kernel/ports/turnstile.ts';
import {
  issueSiteKey,
  listKeys,
  revokeSiteKey,
  updateSiteKeyOrigins,
} from '../../functions/services/site-keys.ts';
import { afterIndexLag, eventually } from '../support/eventually.ts';
import {
  createTestAgent,
  createTestPlaces,
  createTestTenant,
  type TestTenant,
} from '../support/factories.ts';
import { startTestApi, type TestApi } from '../support/http.ts';

let api: TestApi;
let tenant: TestTenant;
let siteKey: string;
let siteKeyId: string;
let places: Awaited<ReturnType<typeof createTestPlaces>>;
const PAGE = 'https://www.agency.example';

beforeAll(async () => {
  tenant = await createTestTenant({ languages: ['en', 'es'] });
  api = await startTestApi(tenant.key);
  places = await createTestPlaces();
  const issued = await issueSiteKey({
    tenantId: tenant.tenantId,
    origins: `${PAGE},https://*.agency.example,http://localhost`,
  });
  siteKey = issued.key;
  siteKeyId = issued.record.id;
});
afterAll(async () => api.close());

/** A site call as a page would make it: key and origin in the query, the Origin header from the browser. */
function site(
  method: string,
  path: string,
  options: {
    origin?: string | null;
    header?: string | null;
    key?: string;
    body?: unknown;
    headers?: Record<string, string>;
  } = {},
) {
  const query = new URLSearchParams(path.includes('?') ? path.split('?')[1] : '');
  query.set('key', options.key ?? siteKey);
  const origin = options.origin === undefined ? PAGE : options.origin;
  if (origin !== null) query.set('origin', origin);
  const header = options.header === undefined ? origin : options.header;
  return api.call(method, `${path.split('?')[0]}?${query}`, {
    key: null,
    ...(options.body !== undefined ? { body: options.body } : {}),
    headers: { ...(header ? { origin: header } : {}), ...(options.headers ?? {}) },
  });
}

async function createListing(body: Record<string, unknown>) {
  const res = await api.call('POST', '/v1/properties', { body });
  expect(res.status, res.text).toBe(201);
  return res.body as { id: string; slug: string };
}

describe('publishable keys: the origin rules (docs/site-api.md)', () => {
  it('an allowed origin gets Access-Control-Allow-Origin = itself and Vary: Origin', async () => {
    const res = await site('GET', '/v1/site/amenities');
    expect(res.status, res.text).toBe(200);
    expect(res.headers.get('access-control-allow-origin')).toBe(PAGE);
    expect(res.headers.get('vary')).toContain('Origin');
    expect(res.headers.get('cache-control')).toBe('public, s-maxage=60, stale-while-revalidate=300');
  });

  it('a subdomain matches https://*.host, the bare domain does not', async () => {
    const sub = await site('GET', '/v1/site/amenities', { origin: 'https://shop.agency.example' });
    expect(sub.status).toBe(200);
    const deep = await site('GET', '/v1/site/amenities', { origin: 'https://a.b.agency.example' });
    expect(deep.status).toBe(200);
    const bare = await site('GET', '/v1/site/amenities', { origin: 'https://agency.example' });
    expect(bare.status).toBe(403);
    expect(bare.headers.get('access-control-allow-origin')).toBeNull();
    expect(bare.headers.get('cache-control')).toBe('no-store');
  });

  it('http://localhost matches any port; http://127.0.0.1 never does', async () => {
    expect((await site('GET', '/v1/site/amenities', { origin: 'http://localhost:5173' })).status).toBe(200);
    expect((await site('GET', '/v1/site/amenities', { origin: 'http://localhost' })).status).toBe(200);
    const loopback = await site('GET', '/v1/site/amenities', { origin: 'http://127.0.0.1:5173' });
    expect(loopback.status).toBe(403);
    expect(loopback.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('from a browser, origin must equal the Origin header: missing or another site → 403 without CORS', async () => {
    const missing = await site('GET', '/v1/site/amenities', { origin: null, header: PAGE });
    expect(missing.status).toBe(403);
    expect(missing.headers.get('access-control-allow-origin')).toBeNull();
    const other = await site('GET', '/v1/site/amenities', {
      origin: 'https://shop.agency.example',
      header: PAGE,
    });
    expect(other.status).toBe(403);
    const foreign = await site('GET', '/v1/site/amenities', { origin: 'https://evil.example' });
    expect(foreign.status).toBe(403);
    expect(foreign.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('without an Origin header, origin may be omitted, but a sent one must be allowed', async () => {
    const none = await site('GET', '/v1/site/amenities', { origin: null, header: null });
    expect(none.status).toBe(200);
    expect(none.headers.get('access-control-allow-origin')).toBeNull();
    expect((await site('GET', '/v1/site/amenities', { header: null })).status).toBe(200);
    expect(
      (await site('GET', '/v1/site/amenities', { origin: 'https://evil.example', header: null })).status,
    ).toBe(403);
  });

  it('an unknown or revoked key → 404; a suspended account → 503 (with CORS headers)', async () => {
    expect((await site('GET', '/v1/site/amenities', { key: 'svc_pk_unknown' })).status).toBe(404);
    expect((await site('GET', '/v1/site/amenities', { key: 'nothing' })).status).toBe(404);
    const other = await issueSiteKey({ tenantId: tenant.tenantId, origins: PAGE });
    expect((await site('GET', '/v1/site/amenities', { key: other.key })).status).toBe(200);
    await revokeSiteKey(tenant.tenantId, other.record.id);
    // Read eventually consistently (and cached): the revocation holds once the read follows it.
    const revoked = await eventually(
      () => site('GET', '/v1/site/amenities', { key: other.key }),
      (r) => r.status === 404,
      { timeoutMs: 3_000 },
    );
    expect(revoked.status).toBe(404);

    const suspended = await createTestTenant();
    const key = await issueSiteKey({ tenantId: suspended.tenantId, origins: PAGE });
    await suspended.update({ suspended: true });
    const res = await eventually(
      () => site('GET', '/v1/site/amenities', { key: key.key }),
      (r) => r.status === 503,
      { timeoutMs: 3_000 },
    );
    expect(res.status).toBe(503);
    expect(res.headers.get('access-control-allow-origin')).toBe(PAGE);
    expect(res.headers.get('cache-control')).toBe('no-store');
  });

  it('a secret key in key → 400 and the key is marked exposed; it keeps working', async () => {
    const secret = await tenant.newKey(['properties:read'], { name: 'leaked' });
    const res = await site('GET', '/v1/site/amenities', { key: secret.key });
    expect(res.status).toBe(400);
    const keys = await listKeys(tenant.tenantId);
    const leaked = keys.find((k) => k.id === secret.id);
    expect(leaked?.exposed_at).toEqual(expect.any(String));
    expect(leaked?.kind).toBe('secret');
    expect((await api.call('GET', '/v1/places', { key: secret.key })).status).toBe(200);
  });

  it('a publishable key is no Bearer key', async () => {
    expect((await api.call('GET', '/v1/places', { key: siteKey })).status).toBe(401);
  });

  it('an origin update bites on the next request once reads see it', async () => {
    const { record, key } = await issueSiteKey({ tenantId: tenant.tenantId, origins: PAGE });
    expect((await site('GET', '/v1/site/amenities', { key })).status).toBe(200);
    await updateSiteKeyOrigins(tenant.tenantId, record.id, 'https://other.example');
    // The key is read eventually consistently (functions/data/api-keys.ts): a request within the
    // read lag may still see the old origins, as on AWS; the test cache's TTL is 0, so nothing else lags.
    await afterIndexLag();
    expect((await site('GET', '/v1/site/amenities', { key })).status).toBe(403);
  });
});

describe('CORS preflight on every site path', () => {
  const preflight = (path: string, origin: string, method = 'GET', key = siteKey) =>
    fetch(`${api.url}${path}?key=${key}&origin=${encodeURIComponent(origin)}`, {
      method: 'OPTIONS',
      headers: {
        origin,
        'access-control-request-method': method,
        'access-control-request-headers': 'content-type',
      },
    });

  it('answers 204 with methods, headers and max age for an allowed origin', async () => {
    for (const path of [
      '/v1/site/properties',
      '/v1/site/leads',
      '/v1/theme',
      '/v1/site/locations/x',
      '/v1/site/properties/abc/view',
    ]) {
      const res = await preflight(
        path,
        PAGE,
        path.endsWith('leads') || path.endsWith('view') ? 'POST' : 'GET',
      );
      expect(res.status, path).toBe(204);
      expect(res.headers.get('access-control-allow-origin')).toBe(PAGE);
      expect(res.headers.get('access-control-allow-methods')).toContain('POST');
      expect(res.headers.get('access-control-allow-headers')?.toLowerCase()).toContain('content-type');
      // A retried site write sends Idempotency-Key: the page may send it cross-origin.
      expect(res.headers.get('access-control-allow-headers')?.toLowerCase()).toContain('idempotency-key');
      expect(Number(res.headers.get('access-control-max-age'))).toBeGreaterThan(0);
    }
  });

  it('refuses a disallowed origin (403, no CORS headers) and an unknown key (404)', async () => {
    const res = await preflight('/v1/site/properties', 'https://evil.example');
    expect(res.status).toBe(403);
    expect(res.headers.get('access-control-allow-origin')).toBeNull();
    expect((await preflight('/v1/site/properties', PAGE, 'GET', 'svc_pk_nope')).status).toBe(404);
  });
});

describe('site reads', () => {
  let agentSlug: string;
  let a: { id: string; slug: string };
  let b: { id: string; slug: string };
  let c: { id: string; slug: string };
  let rent: { id: string; slug: string };

  beforeAll(async () => {
    const agent = await createTestAgent(tenant.tenantId, 'Site Agent');
    agentSlug = agent.slug;
    a = await createListing({
      title: 'Sea view villa',
      description: 'A villa with a pool by the sea',
      listing_type: 'sale',
      price: '500000',
      currency: 'EUR',
      property_type: 'villa',
      bedrooms: 4,
      amenities: ['pool', 'garden'],
      place_code: places.town.code,
      internal_ref: 'REF-A',
      latitude: 36.123456,
      longitude: -5.123456,
      location_precision: 'approximate',
      is_featured: true,
      agent_id: agent.id,
    });
    b = await createListing({
      title: 'Town flat',
      listing_type: 'sale',
      price: '200000',
      currency: 'EUR',
      property_type: 'apartment',
      bedrooms: 2,
      amenities: ['garden'],
      place_code: places.town.code,
      latitude: 36.5,
      longitude: -5.5,
      location_precision: 'hidden',
    });
    c = await createListing({
      title: 'Coastal villa',
      listing_type: 'sale',
      price: '450000',
      currency: 'EUR',
      property_type: 'villa',
      bedrooms: 3,
      place_code: places.region.code,
    });
    rent = await createListing({
      title: 'Rental flat',
      listing_type: 'rent',
      rent_price: '1200',
      currency: 'EUR',
      property_type: 'apartment',
      bedrooms: 1,
      place_code: places.town.code,
    });
    await createListing({ title: 'Draft without place', listing_type: 'sale', price: '1' });
    // The site reads the catalogue through the listings index: the site is visited after it follows.
    await afterIndexLag();
  });

  it('searches only live listings, never with internal_ref; approximate rounded, hidden none', async () => {
    const res = await site('GET', '/v1/site/properties');
    expect(res.status, res.text).toBe(200);
    expect(res.body.total).toBe(4);
    expect(res.text).not.toContain('REF-A');
    expect(res.text).not.toContain('internal_ref');
    const villa = res.body.items.find((i: { id: string }) => i.id === a.id);
    expect(villa.latitude).toBe(36.12);
    expect(villa.longitude).toBe(-5.12);
    expect(villa.agent).toEqual({ slug: agentSlug, name: 'Site Agent' });
    const flat = res.body.items.find((i: { id: string }) => i.id === b.id);
    expect(flat.latitude).toBeNull();
    expect(res.body.items[0].id).toBe(rent.id); // newest first
  });

  it('filters: listing, type, price, beds, amenities, q, featured, location; sorts and pages', async () => {
    const ids = async (query: string) => {
      const res = await site('GET', `/v1/site/properties?${query}`);
      expect(res.status, res.text).toBe(200);
      return (res.body.items as { id: string }[]).map((i) => i.id);
    };
    expect(await ids('listing=rent')).toEqual([rent.id]);
    expect((await ids('type=villa')).sort()).toEqual([a.id, c.id].sort());
    expect(await ids('min_price=300000&max_price=480000')).toEqual([c.id]);
    expect(await ids('listing=rent&max_price=1500')).toEqual([rent.id]);
    expect((await ids('beds=3')).sort()).toEqual([a.id, c.id].sort());
    expect(await ids('amenities=pool,garden')).toEqual([a.id]);
    expect(await ids('q=SEA%20villa')).toEqual([a.id]);
    expect((await ids('q=seatown')).sort()).toEqual([a.id, b.id, rent.id].sort());
    expect(await ids('featured=true')).toEqual([a.id]);
    expect(await ids('listing=sale&sort=price_asc')).toEqual([b.id, c.id, a.id]);
    expect(await ids('listing=sale&sort=price_desc&limit=1&offset=1')).toEqual([c.id]);
    const page = await site('GET', '/v1/site/properties?limit=1');
    expect(page.body.total).toBe(4);
    expect(page.body.items).toHaveLength(1);

    const locations = await site('GET', '/v1/site/locations');
    const town = locations.body.items.find(
      (l: { kind: string; name: string }) => l.kind === 'place' && l.name === 'Seatown',
    );
    expect(town.count).toBe(3);
    const region = locations.body.items.find(
      (l: { kind: string; name: string }) => l.kind === 'place' && l.name === 'Coast',
    );
    expect(region.count).toBe(4);
    const villas = locations.body.items.find(
      (l: { kind: string; slug: string }) => l.kind === 'property_type' && l.slug === 'villa',
    );
    expect(villas.count).toBe(2);
    expect((await ids(`location=${town.slug}`)).sort()).toEqual([a.id, b.id, rent.id].sort());
    expect((await site('GET', `/v1/site/locations/${town.slug}`)).body).toMatchObject({
      count: 3,
      kind: 'place',
    });
    expect((await site('GET', '/v1/site/locations/nowhere')).status).toBe(404);
  });

  it('refuses bad filters with 422', async () => {
    for (const query of [
      'limit=0',
      'limit=51',
      'offset=-1',
      'min_price=10&max_price=5',
      'sort=cheapest',
      'amenities=pool,moat',
      'locale=fr',
    ]) {
      const res = await site('GET', `/v1/site/properties?${query}`);
      expect(res.status, query).toBe(422);
      expect(res.headers.get('cache-control')).toBe('no-store');
    }
  });

  it('by slug (a retired slug with is_canonical false), by id (available or not), similar', async () => {
    const bySlug = await site('GET', `/v1/site/properties/by-slug/${a.slug}`);
    expect(bySlug.status, bySlug.text).toBe(200);
    expect(bySlug.body).toMatchObject({ id: a.id, is_canonical: true, canonical_slug: a.slug });

    const renamed = await api.call('PATCH', `/v1/properties/${c.id}`, {
      body: { title: 'Renamed coastal villa' },
    });
    expect(renamed.status).toBe(200);
    if (renamed.body.slug !== c.slug) {
      const retired = await site('GET', `/v1/site/properties/by-slug/${c.slug}`);
      expect(retired.body).toMatchObject({
        id: c.id,
        is_canonical: false,
        canonical_slug: renamed.body.slug,
      });
    }

    const similar = await site('GET', `/v1/site/properties/by-slug/${a.slug}/similar`);
    expect(similar.status).toBe(200);
    expect(similar.body.items.map((i: { id: string }) => i.id)).toEqual([b.id, c.id]);
    const similarById = await site('GET', `/v1/site/properties/${b.id}/similar`);
    expect(similarById.body.items.map((i: { id: string }) => i.id)).toEqual([a.id, c.id]);

    const live = await site('GET', `/v1/site/properties/by-id/${b.id}`);
    expect(live.body).toMatchObject({ id: b.id, available: true });
    expect((await api.call('DELETE', `/v1/properties/${b.id}`)).status).toBe(204);
    // The website's catalogue catches up through an index, which may show an archived listing for
    // a moment after its archive (as on AWS): it must stop doing so.
    const gone = await eventually(
      () => site('GET', `/v1/site/properties/by-id/${b.id}`),
      (res) => res.body.available === false,
    );
    expect(gone.body).toEqual({ id: b.id, available: false });
    expect((await site('GET', `/v1/site/properties/by-slug/${b.slug}`)).status).toBe(404);
    expect((await site('GET', '/v1/site/properties/by-id/00000000-0000-4000-8000-000000000000')).status).toBe(
      404,
    );
  });

  it('agents, amenities in locale, theme defaults', async () => {
    const agents = await site('GET', '/v1/site/agents');
    expect(agents.body.items).toContainEqual(
      expect.objectContaining({ slug: agentSlug, name: 'Site Agent', listing_count: 1, photo_url: null }),
    );
    expect((await site('GET', `/v1/site/agents/by-slug/${agentSlug}`)).body.listing_count).toBe(1);
    expect((await site('GET', '/v1/site/agents/by-slug/nobody')).status).toBe(404);
    const amenities = await site('GET', '/v1/site/amenities?locale=es');
    expect(amenities.body.items).toContainEqual({ code: 'pool', label: 'Piscina' });
    const theme = await site('GET', '/v1/theme');
    expect(theme.body).toMatchObject({
      corner_style: 'rounded',
      languages: ['en', 'es'],
      default_language: 'en',
    });
  });
});

describe('site writes', () => {
  // Each test its own key: inquiries are budgeted per key and visitor (5 a minute).
  const freshKey = async () => (await issueSiteKey({ tenantId: tenant.tenantId, origins: PAGE })).key;

  it('an Inquiry needs a valid Turnstile token: none or a bad one → 403 and nothing written', async () => {
    const key = await freshKey();
    const body = { name: 'Visitor', email: 'visitor@example.com', message: 'Hello' };
    expect((await site('POST', '/v1/site/leads', { key, body })).status).toBe(403);
    expect((await site('POST', '/v1/site/leads', { key, body: { ...body, turnstile: 'bad' } })).status).toBe(
      403,
    );
    const leads = await api.call('GET', '/v1/leads?q=visitor@example.com');
    expect(leads.body.data).toHaveLength(0);
  });

  it('creates the Inquiry like the website: Lead source widget, channel form, via widget, page_url', async () => {
    const listing = await createListing({
      title: 'Asked about',
      listing_type: 'sale',
      price: '1000',
      place_code: places.town.code,
    });
    const res = await site('POST', '/v1/site/leads', {
      origin: null,
      body: {
        name: 'Web Visitor',
        email: 'Web.Visitor@example.com',
        message: 'Is it free?',
        property_id: listing.id,
        turnstile: TURNSTILE_DUMMY_TOKEN,
      },
      headers: { referer: `${PAGE}/homes/asked-about` },
    });
    expect(res.status, res.text).toBe(201);
    expect(res.headers.get('cache-control')).toBe('no-store');
    const inquiry = await api.call('GET', `/v1/inquiries/${res.body.id}`);
    expect(inquiry.body).toMatchObject({
      channel: 'form',
      via: 'widget',
      page_url: `${PAGE}/homes/asked-about`,
      property_id: listing.id,
    });
    const lead = await api.call('GET', `/v1/leads/${inquiry.body.lead_id}`);
    expect(lead.body.source).toBe('widget');
  });

  it('refuses both property_id and agent_id, a bad email, a long message (422) and a body over 64 KB (413)', async () => {
    const base = { name: 'V', email: 'v@example.com', message: 'Hi', turnstile: TURNSTILE_DUMMY_TOKEN };
    const id = '00000000-0000-4000-8000-000000000000';
    const key = await freshKey();
    expect(
      (await site('POST', '/v1/site/leads', { key, body: { ...base, property_id: id, agent_id: id } }))
        .status,
    ).toBe(422);
    expect((await site('POST', '/v1/site/leads', { key, body: { ...base, email: 'nope' } })).status).toBe(
      422,
    );
    expect(
      (await site('POST', '/v1/site/leads', { key, body: { ...base, message: 'x'.repeat(5001) } })).status,
    ).toBe(422);
    const other = await freshKey();
    expect(
      (await site('POST', '/v1/site/leads', { key: other, body: { ...base, message: 'x'.repeat(70_000) } }))
        .status,
    ).toBe(413);
  });
});

describe('views', () => {
  it('counts a view once per visitor and minute; listing show prints views; unknown slug → 404', async () => {
    const listing = await createListing({
      title: 'Viewed home',
      listing_type: 'sale',
      price: '1',
      place_code: places.town.code,
    });
    await afterIndexLag(); // the site finds a listing by slug in its catalogue, read through an index
    // Away from a minute's edge, so both views fall in one window.
    if (Date.now() % 60_000 > 55_000)
      await new Promise((r) => setTimeout(r, 60_000 - (Date.now() % 60_000) + 50));
    expect((await site('POST', `/v1/site/properties/${listing.slug}/view`)).status).toBe(204);
    expect((await site('POST', `/v1/site/properties/${listing.slug}/view`)).status).toBe(204);
    expect(await listingViewCount(tenant.tenantId, listing.id)).toBe(1);
    expect((await site('POST', '/v1/site/properties/no-such-home/view')).status).toBe(404);
  });
});

describe('budgets (docs/site-api.md)', { timeout: 150_000 }, () => {
  /** Waits for a fresh one-minute window when the current one is nearly over. */
  const freshWindow = async (needSeconds: number) => {
    const left = 60_000 - (Date.now() % 60_000);
    if (left < needSeconds * 1000) await new Promise((r) => setTimeout(r, left + 50));
  };

  it('ip-minute: 120 publishable calls a minute per visitor, then 429 with Retry-After', async () => {
    const own = await createTestTenant();
    const { key } = await issueSiteKey({ tenantId: own.tenantId, origins: PAGE });
    // 121 calls must land in one fixed window: start at least 50 s before it ends and send them in
    // parallel batches, so that a slow machine does not roll the window over mid-test.
    await freshWindow(50);
    // An uncached answer (404, no-store): a cacheable 200 carries no per-visitor budget headers.
    const first = await site('GET', '/v1/site/properties/by-slug/no-such-home', { key });
    expect(first.status).toBe(404);
    expect(first.headers.get('ratelimit-policy')).toBe('ip-minute;q=120;w=60, site-minute;q=12000;w=60');
    expect(first.headers.get('ratelimit')).toMatch(/^ip-minute;r=119;t=\d+$/);
    const statuses: number[] = [];
    for (let batch = 0; batch < 120 / 8; batch++) {
      const answers = await Promise.all(
        Array.from({ length: 8 }, () => site('GET', '/v1/site/amenities', { key })),
      );
      statuses.push(...answers.map((a) => a.status));
    }
    // Calls 2–120 spend the rest of the budget; one of the parallel calls is the 121st.
    expect(statuses.filter((s) => s === 200)).toHaveLength(119);
    expect(statuses.filter((s) => s === 429)).toHaveLength(1);
    const last = await site('GET', '/v1/site/amenities', { key });
    expect(last.status).toBe(429);
    expect(Number(last.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(last.headers.get('cache-control')).toBe('no-store');
  });

  it('inquiry-minute: 5 inquiries a minute per key and visitor; the policy lists it', async () => {
    const own = await createTestTenant();
    const { key } = await issueSiteKey({ tenantId: own.tenantId, origins: PAGE });
    await freshWindow(30);
    const body = { name: 'Busy', email: 'busy@example.com', message: 'Hi', turnstile: TURNSTILE_DUMMY_TOKEN };
    const first = await site('POST', '/v1/site/leads', { key, body });
    expect(first.status, first.text).toBe(201);
    expect(first.headers.get('ratelimit-policy')).toBe(
      'ip-minute;q=120;w=60, site-minute;q=12000;w=60, inquiry-minute;q=5;w=60',
    );
    for (let i = 0; i < 4; i++)
      expect((await site('POST', '/v1/site/leads', { key, body })).status).toBe(201);
    const sixth = await site('POST', '/v1/site/leads', { key, body });
    expect(sixth.status).toBe(429);
    expect(sixth.headers.get('ratelimit')).toMatch(/^inquiry-minute;r=0;t=\d+$/);
    // Reads from the same visitor still work: the inquiry budget is its own.
    expect((await site('GET', '/v1/site/amenities', { key })).status).toBe(200);
  });

  it('site-minute: all publishable keys of a Tenant share one budget', async () => {
    process.env.SITE_RATE_LIMIT_TENANT_PER_MINUTE = '6';
    resetConfig();
    try {
      const own = await createTestTenant();
      const one = await issueSiteKey({ tenantId: own.tenantId, origins: PAGE });
      const two = await issueSiteKey({ tenantId: own.tenantId, origins: PAGE });
      await freshWindow(20);
      for (let i = 0; i < 3; i++) {
        expect((await site('GET', '/v1/site/amenities', { key: one.key })).status).toBe(200);
        expect((await site('GET', '/v1/site/amenities', { key: two.key })).status).toBe(200);
      }
      const over = await site('GET', '/v1/site/amenities', { key: two.key });
      expect(over.status).toBe(429);
      expect(over.headers.get('ratelimit')).toMatch(/^site-minute;r=0;t=\d+$/);
    } finally {
      delete process.env.SITE_RATE_LIMIT_TENANT_PER_MINUTE;
      resetConfig();
    }
  });
});
