import { ThemeIn, toThemeOut } from '../contract/theme.ts';
import { requireTenantBySlug, updateTenant } from '../data/tenants.ts';
import '../kernel/zod.ts';
import { AdminInputError } from './tenants.ts';

/** `theme set`: validates the whole theme (unknown fields refused), stores it, returns what GET /v1/theme shows. */
export async function setTheme(slug: string, raw: unknown) {
  const parsed = ThemeIn.safeParse(raw);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${i.path.join('.') || '(theme)'}: ${i.message}`);
    throw new AdminInputError(`theme: ${problems.join('; ')}`);
  }
  const tenant = await requireTenantBySlug(slug);
  const updated = await updateTenant(tenant.tenantId, { theme: parsed.data }, new Date().toISOString());
  return toThemeOut(updated);
}
