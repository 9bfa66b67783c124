import { createHash, randomUUID } from 'node:crypto';

/**
 * Where a write gets the ids of what it creates.
 *
 * Without an Idempotency-Key they are random. Under one they are derived from the key's seed, which
 * the key's record keeps: when a run commits and then dies before its answer is stored (a killed
 * container, a timeout), the client's retry runs again once the claim lapses, derives the same ids,
 * and finds what the first run created instead of creating it a second time (a second Inquiry, a
 * second Owner email, a second scoring run).
 */
export interface IdSource {
  /** The id of the next thing of this kind the request creates (the n-th call of a kind, the n-th id). */
  next(kind: string): string;
  /**
   * True when an earlier run of this same request (same key, same request) held the claim and let it
   * lapse: it may have committed, so a create first looks for what these ids name.
   */
  readonly resumed: boolean;
}

export function randomIds(): IdSource {
  return { next: () => randomUUID(), resumed: false };
}

/** A UUID (version 4 layout, so every validator accepts it) from 16 bytes of SHA-256. */
function uuidFrom(text: string): string {
  const bytes = createHash('sha256').update(text).digest().subarray(0, 16);
  bytes[6] = ((bytes[6] ?? 0) & 0x0f) | 0x40;
  bytes[8] = ((bytes[8] ?? 0) & 0x3f) | 0x80;
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

export function seededIds(seed: string, resumed: boolean): IdSource {
  const issued = new Map<string, number>();
  return {
    resumed,
    next: (kind) => {
      const n = (issued.get(kind) ?? 0) + 1;
      issued.set(kind, n);
      return uuidFrom(`${seed}\n${kind}\n${n}`);
    },
  };
}
