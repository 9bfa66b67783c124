import { randomUUID } from 'node:crypto';
import { vi } from 'vitest';
import { type LeadRecord, nextTimestamp, writeLead } from '../../functions/data/leads.ts';
import { SCOPES, type Scope } from '../../functions/domain/scopes.ts';
import { resetConfig } from '../../functions/kernel/config.ts';
import { createAgent } from '../../functions/services/agents.ts';
import { issueApiKey } from '../../functions/services/api-keys.ts';
import { savePlace } from '../../functions/services/places.ts';
import { issueSiteKey } from '../../functions/services/site-keys.ts';
import { createTenantFromAdmin, updateTenantFromAdmin } from '../../functions/services/tenants.ts';
import { afterIndexLag } from './eventually.ts';

/** A unique suffix so that test files sharing one table never collide. */
export function unique(prefix = 't'): string {
  return `${prefix}-${randomUUID().slice(0, 8)}`;
}

export interface TestTenant {
  tenantId: string;
  slug: string;
  /** A key with every scope. */
  key: string;
  keyId: string;
  /** Issues another key for this tenant. */
  newKey: (
    scopes: readonly Scope[],
    options?: { expiresAt?: string; name?: string },
  ) => Promise<{ id: string; key: string }>;
  update: typeof updateTenantFromAdmin extends (slug: string, c: infer C) => unknown
    ? (changes: C) => Promise<unknown>
    : never;
}

export async function createTestTenant(options: { languages?: string[] } = {}): Promise<TestTenant> {
  const slug = unique('tenant');
  const tenant = await createTenantFromAdmin({
    slug,
    name: `Test ${slug}`,
    languages: options.languages ?? ['en', 'es'],
  });
  const newKey: TestTenant['newKey'] = async (scopes, opts = {}) => {
    const { record, secret } = await issueApiKey({
      tenantId: tenant.tenantId,
      name: opts.name ?? unique('key'),
      scopes: [...scopes],
      ...(opts.expiresAt ? { expiresAt: opts.expiresAt } : {}),
    });
    return { id: record.id, key: secret };
  };
  const full = await newKey(SCOPES, { name: 'test-full' });
  return {
    tenantId: tenant.tenantId,
    slug,
    key: full.key,
    keyId: full.id,
    newKey,
    update: (changes) => updateTenantFromAdmin(slug, changes),
  };
}

/**
 * Tenants whose keys a minute's budget never stops, for tests that send far more requests than that on
 * purpose and are not about limits. The key budget is an environment setting: `restoreBudgets` after.
 */
export async function createUnthrottledTenants(count: number): Promise<TestTenant[]> {
  const tenants = await Promise.all(Array.from({ length: count }, () => createTestTenant()));
  vi.stubEnv('RATE_LIMIT_KEY_PER_MINUTE', '100000');
  resetConfig();
  await Promise.all(tenants.map((t) => t.update({ rateLimitPerMinute: 100_000 })));
  return tenants;
}

/** Undoes {@link createUnthrottledTenants}'s budget setting. */
export function restoreBudgets(): void {
  vi.unstubAllEnvs();
  resetConfig();
}

/**
 * A new Tenant with a publishable (site) key for pages at `origin`, and `path(p)`: the site path `p`
 * as such a page requests it (the key and the origin in the query, no secret key).
 */
export async function createSiteTenant(
  origin: string,
): Promise<{ tenant: TestTenant; key: string; path: (path: string) => string }> {
  const tenant = await createTestTenant();
  const { key } = await issueSiteKey({ tenantId: tenant.tenantId, origins: origin });
  return { tenant, key, path: (path) => `${path}?${new URLSearchParams({ key, origin })}` };
}

export async function createTestAgent(tenantId: string, name = 'Test Agent') {
  const agent = await createAgent({ tenantId, name, email: `${unique('agent')}@example.com` });
  // Set up as ops would, some time before the requests that find it through the Tenant's Agent
  // index (the round-robin owner rule, GET /v1/agents): a GSI lags its write.
  await afterIndexLag();
  return agent;
}

/** A small Place tree with unique codes: country > region > town. */
export async function createTestPlaces() {
  const prefix = unique('P').toUpperCase().replace(/-/g, '');
  const country = await savePlace({ code: `${prefix}`, name: 'Testland', kind: 'country' });
  const region = await savePlace({
    code: `${prefix}-R`,
    name: 'Coast',
    parent: country.code,
    kind: 'region',
  });
  const town = await savePlace({
    code: `${prefix}-R-T`,
    name: 'Seatown',
    parent: region.code,
    kind: 'municipality',
  });
  return { country, region, town };
}

/**
 * A Lead record as the Lead writer takes it: new, manual, unassigned, unscored and live, stamped now,
 * with `fields` over that (a test writes it itself, through writeLead or the entity).
 */
export function testLeadRecord(tenantId: string, fields: Partial<LeadRecord> = {}): LeadRecord {
  const now = nextTimestamp();
  return {
    tenantId,
    id: randomUUID(),
    name: 'Test Lead',
    status: 'new',
    source: 'manual',
    ownerKey: 'unassigned',
    tierKey: 'unscored',
    isActive: true,
    createdAt: now,
    updatedAt: now,
    ...fields,
  };
}

/**
 * A Lead written through the real Lead writer (claims and search tokens included), unassigned and
 * unscored, without the owner assignment and emails of the HTTP paths.
 */
export async function createTestLead(
  tenantId: string,
  fields: { name?: string; email?: string | null | undefined; phone?: string } = {},
): Promise<string> {
  const id = randomUUID();
  const email = fields.email === undefined ? `${id.slice(0, 8)}@example.com` : fields.email;
  const { outcome } = await writeLead({
    next: testLeadRecord(tenantId, {
      id,
      name: fields.name ?? 'Ana Buyer',
      ...(email ? { email } : {}),
      ...(fields.phone ? { phone: fields.phone } : {}),
    }),
    claims: [
      ...(email ? [{ kind: 'lead-email' as const, value: email }] : []),
      ...(fields.phone ? [{ kind: 'lead-phone' as const, value: fields.phone }] : []),
    ],
  });
  if (outcome !== 'ok') throw new Error(`createTestLead: ${outcome}`);
  return id;
}
