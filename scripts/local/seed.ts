import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { reindexAgents } from '../../functions/data/agents.ts';
import { rekeyLeads } from '../../functions/data/leads.ts';
import { getTenantBySlug } from '../../functions/data/tenants.ts';
import { SCOPES } from '../../functions/domain/scopes.ts';
import { createAgent } from '../../functions/services/agents.ts';
import { issueApiKey } from '../../functions/services/api-keys.ts';
import { migrateListings } from '../../functions/services/listings.ts';
import { orderByDepth, type PlaceInput, savePlace } from '../../functions/services/places.ts';
import { issueSiteKey, listKeys } from '../../functions/services/site-keys.ts';
import { createTenantFromAdmin } from '../../functions/services/tenants.ts';
import { DEMO_AGENTS, DEMO_LANGUAGES, type SampleListing, seedCatalogue } from './demo-catalogue.ts';

export const DEMO_SLUG = 'demo';

export interface DemoSeed {
  tenantId: string;
  slug: string;
  agentEmail: string;
  /** Present only on the start that created the tenant: secrets are shown once. */
  keys?: { name: string; key: string; scopes: string[] }[];
  /** The publishable key for a site on http://localhost (any port), when this start created it. */
  siteKey?: { name: string; key: string; origins: string[] };
  /**
   * On the start that created the tenant: writes the sample listings. Run after start-up (the API
   * serves meanwhile), since two dozen listings in three languages take a while on a busy machine.
   */
  writeCatalogue?: () => Promise<{ id: string; sample: SampleListing }[]>;
}

/** The demo's publishable key, made once: a page on http://localhost (any port) may use it. */
async function seedSiteKey(tenantId: string): Promise<DemoSeed['siteKey']> {
  const existing = await listKeys(tenantId);
  if (existing.some((k) => k.kind === 'publishable')) return undefined;
  const { record, key } = await issueSiteKey({ tenantId, origins: 'http://localhost', name: 'demo-website' });
  return { name: record.name, key, origins: record.origins ?? [] };
}

/**
 * The demo tenant: a sample Place catalogue, three Agents, two dozen listings (scripts/local/demo-catalogue.ts)
 * and two keys, created on the first start only.
 */
export async function seedDemo(): Promise<DemoSeed> {
  const existing = await getTenantBySlug(DEMO_SLUG);
  if (existing) {
    // A data directory from before GET /v1/agents: its Agents gain the index that lists them.
    await reindexAgents(existing.tenantId);
    // A data directory from before archived Leads had their own list keys: re-filed.
    let after: string | undefined;
    do after = (await rekeyLeads(existing.tenantId, { after })).resumeAfter;
    while (after);
    // A data directory from before archived listings had their own list: re-filed.
    await migrateListings(existing.tenantId);
    // A data directory from before publishable keys gets its site key now (shown on this start).
    const siteKey = await seedSiteKey(existing.tenantId);
    return {
      tenantId: existing.tenantId,
      slug: DEMO_SLUG,
      agentEmail: 'ana@demo.example',
      ...(siteKey ? { siteKey } : {}),
    };
  }

  const places = JSON.parse(
    readFileSync(resolve(import.meta.dirname, 'demo-places.json'), 'utf8'),
  ) as PlaceInput[];
  const parents = new Map();
  for (const place of orderByDepth(places)) await savePlace(place, parents);

  const tenant = await createTenantFromAdmin({
    slug: DEMO_SLUG,
    name: 'Demo Realty',
    languages: [...DEMO_LANGUAGES],
    website: 'https://demo.example',
    defaultCountry: 'ES',
  });
  const agent = await createAgent({
    tenantId: tenant.tenantId,
    name: 'Ana García',
    email: 'ana@demo.example',
    isAdmin: true,
  });
  for (const other of DEMO_AGENTS) await createAgent({ tenantId: tenant.tenantId, ...other });
  const full = await issueApiKey({
    tenantId: tenant.tenantId,
    name: 'demo-full-access',
    scopes: [...SCOPES],
  });
  const readOnly = await issueApiKey({
    tenantId: tenant.tenantId,
    name: 'demo-read-only',
    scopes: ['properties:read', 'leads:read', 'activities:read'],
  });
  const siteKey = await seedSiteKey(tenant.tenantId);
  return {
    tenantId: tenant.tenantId,
    slug: DEMO_SLUG,
    agentEmail: agent.email,
    ...(siteKey ? { siteKey } : {}),
    writeCatalogue: () => seedCatalogue(tenant),
    keys: [
      { name: full.record.name, key: full.secret, scopes: full.record.scopes },
      { name: readOnly.record.name, key: readOnly.secret, scopes: readOnly.record.scopes },
    ],
  };
}
