/** Business rules of a listing that need no storage. */

export type ListingStatus = 'draft' | 'live' | 'archived';

/**
 * A listing is on the website (live) once it has a Place and until it is archived; without a
 * Place it stays a draft and carries needs_location: true.
 */
export function listingStatus(listing: {
  archivedAt?: string | undefined;
  placeCode?: string | undefined;
}): ListingStatus {
  if (listing.archivedAt) return 'archived';
  return listing.placeCode ? 'live' : 'draft';
}

export function needsLocation(listing: { placeCode?: string | undefined }): boolean {
  return !listing.placeCode;
}

/** Fields a PATCH may carry: present → set (null clears), absent → untouched. */
export function splitPatch<T extends Record<string, unknown>>(
  patch: T,
): { set: Partial<T>; clear: (keyof T)[] } {
  const set: Partial<T> = {};
  const clear: (keyof T)[] = [];
  for (const [key, value] of Object.entries(patch) as [keyof T, T[keyof T]][]) {
    if (value === undefined) continue;
    if (value === null) clear.push(key);
    else set[key] = value;
  }
  return { set, clear };
}
