import { PropertyCreate } from '../contract/properties.ts';
import { toValidationIssues } from '../contract/validation.ts';
import type { TenantRecord } from '../data/tenants.ts';
import { ConflictError, RequestValidationError } from '../kernel/errors.ts';
import { upsertListingByRef } from './listings.ts';

export interface ImportSummary {
  total: number;
  created: number;
  updated: number;
  skipped: number;
  failed: number;
  failures: { index: number; internal_ref: string | null; error: string }[];
}

/**
 * Imports a feed: each item in the create shape with its internal_ref. A new reference creates a
 * listing (origin import); a known one is updated by PATCH rules, except the fields a key edited
 * since (manual edits win); an item that changes nothing is skipped. A bad item is reported and
 * the import goes on.
 */
export async function importListings(
  tenant: TenantRecord,
  items: unknown[],
  source: string,
  /** Called after each item: how many are done, of how many. */
  progress: (done: number, total: number) => void = () => undefined,
): Promise<ImportSummary> {
  const summary: ImportSummary = {
    total: items.length,
    created: 0,
    updated: 0,
    skipped: 0,
    failed: 0,
    failures: [],
  };
  const writer = { tenant, name: `import:${source}`, via: 'import' as const };
  for (const [index, item] of items.entries()) {
    const ref =
      typeof (item as { internal_ref?: unknown })?.internal_ref === 'string'
        ? (item as { internal_ref: string }).internal_ref
        : null;
    try {
      if (!ref)
        throw RequestValidationError.single(
          ['internal_ref'],
          'Each imported listing needs its internal_ref',
          'missing',
        );
      const parsed = PropertyCreate.safeParse(item);
      if (!parsed.success) throw new RequestValidationError(toValidationIssues('body', parsed.error, item));
      const result = await upsertListingByRef(writer, ref, parsed.data, undefined);
      if (result.created) summary.created++;
      else if (result.changed) summary.updated++;
      else summary.skipped++;
    } catch (error) {
      if (!(error instanceof RequestValidationError) && !(error instanceof ConflictError)) throw error;
      summary.failed++;
      summary.failures.push({ index, internal_ref: ref, error: error.message });
    }
    progress(index + 1, items.length);
  }
  return summary;
}
