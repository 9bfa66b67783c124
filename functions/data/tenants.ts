import type { CreateEntityItem, EntityItem } from 'electrodb';
import { ConflictError, NotFoundError } from '../kernel/errors.ts';
import { Tenant } from './entities/tenant.ts';
import { UniqueClaim } from './entities/unique-claim.ts';
import { isConditionalFailure } from './errors.ts';
import { tenantWrites } from './service.ts';
import { writeTransaction } from './transactions.ts';

export type TenantRecord = EntityItem<typeof Tenant>;

/** `consistent`: a strongly consistent read, for a read of one's own write. */
export async function getTenant(
  tenantId: string,
  options: { consistent?: boolean } = {},
): Promise<TenantRecord | undefined> {
  // Strongly consistent unless a caller opts out, like every by-id read (see getLead): a Tenant
  // created, suspended or switched to read-only a moment ago is judged as it is now.
  const { data } = await Tenant.get({ tenantId }).go({ consistent: options.consistent ?? true });
  return data ?? undefined;
}

export async function getTenantBySlug(slug: string): Promise<TenantRecord | undefined> {
  const { data } = await Tenant.query.bySlug({ slug }).go({ limit: 1 });
  return data[0];
}

export async function requireTenantBySlug(slug: string): Promise<TenantRecord> {
  const tenant = await getTenantBySlug(slug);
  if (!tenant) throw new NotFoundError(`No tenant with slug "${slug}"`);
  return tenant;
}

export type NewTenant = Omit<CreateEntityItem<typeof Tenant>, 'createdAt' | 'updatedAt'>;

/** Creates the Tenant and claims its slug in one transaction: a taken slug → ConflictError. */
export async function createTenant(tenant: NewTenant, now: string): Promise<TenantRecord> {
  const item = { ...tenant, createdAt: now, updatedAt: now };
  const result = await writeTransaction(() =>
    tenantWrites()
      .transaction.write(({ Tenant: t, UniqueClaim: c }) => [
        c
          .create({
            scope: 'global',
            kind: 'tenant-slug',
            value: tenant.slug,
            ownerId: tenant.tenantId,
            createdAt: now,
          })
          .commit(),
        t.create(item).commit(),
      ])
      .go(),
  );
  if (result.canceled) throw new ConflictError(`Tenant slug "${tenant.slug}" is already taken`);
  return (await getTenant(tenant.tenantId, { consistent: true })) as TenantRecord;
}

export type TenantChanges = Partial<
  Pick<
    TenantRecord,
    | 'name'
    | 'languages'
    | 'website'
    | 'theme'
    | 'subscription'
    | 'suspended'
    | 'rateLimitPerMinute'
    | 'aiEnabled'
    | 'aiMonthlyLimitUsd'
  >
>;

export async function updateTenant(
  tenantId: string,
  changes: TenantChanges,
  now: string,
): Promise<TenantRecord> {
  try {
    const { data } = await Tenant.patch({ tenantId })
      .set({ ...changes, updatedAt: now })
      .go({ response: 'all_new' });
    return data as TenantRecord;
  } catch (error) {
    if (isConditionalFailure(error)) throw new NotFoundError('No such tenant');
    throw error;
  }
}

export { UniqueClaim };

/** Every Tenant, for platform jobs (not a request path). */
export async function listTenants(): Promise<TenantRecord[]> {
  const { data } = await Tenant.query.all({}).go({ pages: 'all' });
  return data;
}
