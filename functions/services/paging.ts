import { decodeCursor, encodeCursor } from '../domain/cursor.ts';
import { cursorSecret } from '../kernel/cursor-secret.ts';
import { RequestValidationError } from '../kernel/errors.ts';

/** The time field a list is ordered by, with `id` breaking ties. */
type OrderField = 'updatedAt' | 'createdAt';

/** Position of an (`field`, id) ordered list: the last item already returned. */
export type Position<F extends OrderField> = { [K in F]: string } & { id: string };

/** Position of a (updated_at, id) ordered list: the last item already returned. */
export type UpdatedPosition = Position<'updatedAt'>;

/**
 * Reads a cursor of the list `scope` (which names the list and its filters) ordered by `field`;
 * an edited or foreign cursor → 422.
 */
export function readCursorBy<F extends OrderField>(
  cursor: string | undefined,
  scope: string,
  field: F,
): Position<F> | undefined {
  if (cursor === undefined) return undefined;
  const payload = decodeCursor(cursor, scope, cursorSecret());
  const position = payload?.position as Record<string, unknown> | undefined;
  const at = position?.[field];
  if (typeof at !== 'string' || typeof position?.id !== 'string') {
    throw RequestValidationError.single(
      ['query', 'cursor'],
      'Invalid cursor: pass next_cursor unchanged, with the same filters',
      'cursor_invalid',
    );
  }
  return { [field]: at, id: position.id } as Position<F>;
}

/**
 * A page from `limit + 1` fetched items ordered by `field`: the extra one only tells that another
 * page exists, and the cursor points after the last item returned.
 */
export function pageBy<F extends OrderField, T extends Position<F>, O>(
  items: T[],
  limit: number,
  scope: string,
  field: F,
  present: (item: T) => O,
): { data: O[]; next_cursor: string | null } {
  const page = items.slice(0, limit);
  const last = page.at(-1);
  const next_cursor =
    items.length > limit && last
      ? encodeCursor({ scope, position: { [field]: last[field], id: last.id } }, cursorSecret())
      : null;
  return { data: page.map(present), next_cursor };
}

/** Reads a cursor of a list ordered by (updated_at, id), as every CRM list is. */
export function readCursor(cursor: string | undefined, scope: string): UpdatedPosition | undefined {
  return readCursorBy(cursor, scope, 'updatedAt');
}

/** A page of a list ordered by (updated_at, id). */
export function pageFrom<T extends UpdatedPosition, O>(
  items: T[],
  limit: number,
  scope: string,
  present: (item: T) => O,
): { data: O[]; next_cursor: string | null } {
  return pageBy(items, limit, scope, 'updatedAt', present);
}

/**
 * A page of a list read with a bound (data/bounded-read.ts): as `pageBy`, and when the read stopped
 * before a full page was found, a shorter page (possibly empty) whose cursor resumes where the read
 * stopped.
 */
export function pageByBounded<F extends OrderField, T extends Position<F>, O>(
  page: { items: T[]; resumeAfter?: { at: string; id: string } | undefined },
  limit: number,
  scope: string,
  field: F,
  present: (item: T) => O,
): { data: O[]; next_cursor: string | null } {
  const { items, resumeAfter } = page;
  if (items.length > limit || !resumeAfter) return pageBy(items, limit, scope, field, present);
  const position = { [field]: resumeAfter.at, id: resumeAfter.id };
  return { data: items.map(present), next_cursor: encodeCursor({ scope, position }, cursorSecret()) };
}
