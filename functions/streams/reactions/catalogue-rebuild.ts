import { requestCatalogueRebuild } from '../../services/catalogue-snapshot.ts';
import type { TableChange } from '../table-change.ts';

/**
 * A change of a listing (new, edited, archived) makes its Tenant's catalogue snapshot due a rebuild.
 * Debounced per Tenant (services/catalogue-snapshot.ts): a bulk import of thousands of listings
 * leaves one marker at a time, so the snapshot is rewritten about every 35 s while it runs (the debounce
 * and the rebuilder's poll: services/catalogue-rebuild.ts).
 */
export async function catalogueRebuildRequest(change: TableChange): Promise<void> {
  if (change.entity !== 'property') return;
  const tenantId = (change.newImage ?? change.oldImage)?.tenantId;
  if (typeof tenantId === 'string') await requestCatalogueRebuild(tenantId);
}
