/**
 * Lists that cost what they return. A filter expression costs the items read, not the items kept,
 * and DynamoDB's Limit counts items before the filter: a Query that reads on until a page is full
 * costs the Tenant's size when few items match (a selective filter, a typo search). So every list
 * reads each partition once, up to a fixed number of items (`readBudget`), and answers a shorter
 * page (possibly empty) with a cursor where its read stopped; the interface allows a short page.
 */

/** A list's place: its order value (updatedAt or createdAt) and the id breaking ties. */
export interface ListPosition {
  at: string;
  id: string;
}

/** What one bounded Query of a partition found: its kept items, and where it stopped (if not at the end). */
export interface BoundedRead<T> {
  items: T[];
  stoppedAt?: ListPosition | undefined;
}

/** A page of items to answer with, and where the next page starts when the read stopped before it. */
export interface BoundedPage<T> {
  /** Up to `limit + 1` items: the extra one tells that another page exists. */
  items: T[];
  /** Set when fewer than `limit + 1` items were found before a partition's read stopped. */
  resumeAfter?: ListPosition | undefined;
}

/** A filtered list reads at most this many items per item of the page (one page plus one extra). */
export const READ_BUDGET_FACTOR = 3;

/**
 * Items a filtered page reads at most, over all its partitions (each reads at least a page, so a
 * list of several partitions reads at most `partitions × (limit + 1)` when that is more).
 * Limit 50: 153 Leads of ~1.3 KB ≈ 25 read units.
 */
export function readBudget(limit: number, partitions = 1): number {
  const wanted = limit + 1;
  return Math.max(wanted, Math.ceil((READ_BUDGET_FACTOR * wanted) / partitions));
}

export function comparePositions(a: ListPosition, b: ListPosition): number {
  if (a.at !== b.at) return a.at < b.at ? -1 : 1;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

/**
 * The position a Query stopped at, from ElectroDB's cursor (its LastEvaluatedKey, base64url JSON):
 * the sort key `field` holds `<at>#<id>` (ids and timestamps hold no `#`).
 */
export function stoppedAtOf(cursor: string | null | undefined, field: string): ListPosition | undefined {
  if (!cursor) return undefined;
  const key = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as Record<string, unknown>;
  const sortKey = key[field];
  if (typeof sortKey !== 'string') throw new Error(`A list cursor without ${field}`);
  const split = sortKey.lastIndexOf('#');
  return { at: sortKey.slice(0, split), id: sortKey.slice(split + 1) };
}

/**
 * One page from the bounded reads of several partitions (each in list order). Where a partition's
 * read stopped, it may hold unread items before another partition's later ones, so items are
 * answered only up to the earliest stop; when that leaves fewer than `limit + 1`, the page resumes
 * after that stop.
 */
export function mergeBounded<T>(
  reads: BoundedRead<T>[],
  limit: number,
  positionOf: (item: T) => ListPosition,
): BoundedPage<T> {
  const stops = reads.flatMap((r) => (r.stoppedAt ? [r.stoppedAt] : []));
  const frontier = stops.sort(comparePositions)[0];
  const merged = reads.flatMap((r) => r.items);
  if (reads.length > 1) merged.sort((a, b) => comparePositions(positionOf(a), positionOf(b)));
  const certain = frontier
    ? merged.filter((item) => comparePositions(positionOf(item), frontier) <= 0)
    : merged;
  if (certain.length > limit) return { items: certain.slice(0, limit + 1) };
  return { items: certain, resumeAfter: frontier };
}
