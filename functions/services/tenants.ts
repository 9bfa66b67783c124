import { randomUUID } from 'node:crypto';
import {
  createTenant,
  requireTenantBySlug,
  type TenantChanges,
  type TenantRecord,
  updateTenant,
} from '../data/tenants.ts';
import { SUPPORTED_COUNTRIES } from '../domain/leads.ts';

/** Site Language codes: BCP 47 primary tags, optionally with a region ("en", "pt-BR"). */
const LANGUAGE = /^[a-z]{2,3}(-[A-Z]{2})?$/;

export class AdminInputError extends Error {}

export function parseLanguages(value: string): string[] {
  const languages = [
    ...new Set(
      value
        .split(',')
        .map((l) => l.trim())
        .filter(Boolean),
    ),
  ];
  if (languages.length === 0)
    throw new AdminInputError('--languages needs at least one language code, e.g. en,es');
  const bad = languages.find((l) => !LANGUAGE.test(l));
  if (bad) throw new AdminInputError(`--languages: "${bad}" is not a language code such as en, es or pt-BR`);
  return languages;
}

const SLUG = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

export interface TenantCreateInput {
  slug: string;
  name: string;
  languages?: string[];
  website?: string;
  defaultCountry?: string;
}

export function parseCountry(value: string): string {
  const country = value.trim().toUpperCase();
  if (!SUPPORTED_COUNTRIES.includes(country)) {
    throw new AdminInputError(
      `--country must be an ISO 3166 code we know the calling code of: ${SUPPORTED_COUNTRIES.join(', ')}`,
    );
  }
  return country;
}

export async function createTenantFromAdmin(input: TenantCreateInput): Promise<TenantRecord> {
  if (!SLUG.test(input.slug))
    throw new AdminInputError('--slug must be lowercase letters, digits and hyphens (1–63)');
  if (!input.name.trim()) throw new AdminInputError('--name must not be empty');
  if (input.website !== undefined && !/^https?:\/\/[^\s/]+/.test(input.website)) {
    throw new AdminInputError('--website must be an http(s) URL');
  }
  return createTenant(
    {
      tenantId: randomUUID(),
      slug: input.slug,
      name: input.name.trim(),
      languages: input.languages ?? ['en'],
      ...(input.website ? { website: input.website } : {}),
      ...(input.defaultCountry ? { defaultCountry: parseCountry(input.defaultCountry) } : {}),
    },
    new Date().toISOString(),
  );
}

export async function updateTenantFromAdmin(slug: string, changes: TenantChanges): Promise<TenantRecord> {
  const tenant = await requireTenantBySlug(slug);
  return updateTenant(tenant.tenantId, changes, new Date().toISOString());
}

/** The tenant as the admin CLI shows it. */
export function presentTenant(t: TenantRecord) {
  return {
    id: t.tenantId,
    slug: t.slug,
    name: t.name,
    languages: t.languages,
    website: t.website ?? null,
    default_country: t.defaultCountry,
    subscription: t.subscription,
    suspended: t.suspended,
    rate_limit_per_minute: t.rateLimitPerMinute ?? null,
    ai: t.aiEnabled ? 'on' : 'off',
    ai_monthly_limit_usd: t.aiMonthlyLimitUsd ?? null,
    created_at: t.createdAt,
    updated_at: t.updatedAt,
  };
}
