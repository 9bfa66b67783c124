import { decodeCursor, encodeCursor } from '../domain/cursor.ts';
import { cursorSecret } from '../platform/cursor-secret.ts';
import { RequestValidationError } from '../platform/errors.ts';

/** Position of a (updated_at, id) ordered list: the last item already returned. */
export interface UpdatedPosition {
  updatedAt: string;
  id: string;
}

/** Reads a cursor of this list (`scope` names the list and its filters); edited or foreign → 422. */
export function readCursor(cursor: string | undefined, scope: string): UpdatedPosition | undefined {
  if (cursor === undefined) return undefined;
  const payload = decodeCursor(cursor, scope, cursorSecret());
  const position = payload?.position as Partial<UpdatedPosition> | undefined;
  if (typeof position?.updatedAt !== 'string' || typeof position.id !== 'string') {
    throw RequestValidationError.single(
      ['query', 'cursor'],
      'Invalid cursor: pass next_cursor unchanged, with the same filters',
      'cursor_invalid',
    );
  }
  return { updatedAt: position.updatedAt, id: position.id };
}

/**
 * A page from `limit + 1` fetched items: the extra one only tells that another page exists, and
 * the cursor points after the last item returned.
 */
export function pageFrom<T extends { updatedAt: string; id: string }, O>(
  items: T[],
  limit: number,
  scope: string,
  present: (item: T) => O,
): { data: O[]; next_cursor: string | null } {
  const page = items.slice(0, limit);
  const last = page.at(-1);
  const next_cursor =
    items.length > limit && last
      ? encodeCursor({ scope, position: { updatedAt: last.updatedAt, id: last.id } }, cursorSecret())
      : null;
  return { data: page.map(present), next_cursor };
}
