import { CatalogueRebuild } from './entities/catalogue-rebuild.ts';
import { isConditionalFailure } from './errors.ts';

/**
 * Marks the Tenant's snapshot due a rebuild at `dueAt`, unless a marker is already there (that one's
 * rebuild will take this change in too). True when this call put the marker. An UpdateItem, not a
 * put: the site's read routes may write with UpdateItem only (lib/stacks/route-group-stack.ts).
 */
export async function markCatalogueRebuildDue(tenantId: string, dueAt: string): Promise<boolean> {
  try {
    await CatalogueRebuild.upsert({ tenantId, dueAt })
      .where(({ dueAt: due }, { notExists }) => notExists(due))
      .go({ response: 'none' });
    return true;
  } catch (error) {
    if (isConditionalFailure(error)) return false;
    throw error;
  }
}

/** The Tenants whose marker is due by `now`, oldest marker first (one Query of the markers' partition). */
export async function dueCatalogueRebuilds(now: string): Promise<string[]> {
  const { data } = await CatalogueRebuild.query
    .byTenant({})
    .where(({ dueAt }, { lte }) => lte(dueAt, now))
    .go({ pages: 'all', consistent: true });
  return data.sort((a, b) => a.dueAt.localeCompare(b.dueAt)).map((m) => m.tenantId);
}

/**
 * Removes the Tenant's marker before its rebuild reads anything: a change after this puts a new
 * marker, so no change can fall between a rebuild's read and the removal of its marker.
 */
export async function clearCatalogueRebuild(tenantId: string): Promise<void> {
  await CatalogueRebuild.delete({ tenantId }).go({ response: 'none' });
}
