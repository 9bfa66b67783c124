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

/**
 * A name-based id: the same text always gives the same UUID, shaped as an RFC 9562 UUID (version 8,
 * custom) from SHA-256, so every id field stays a UUID.
 */
export function uuidFrom(text: string): string {
  const hex = createHash('sha256').update(text).digest('hex');
  const variant = ((Number.parseInt(hex[16] as string, 16) & 0x3) | 0x8).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-8${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
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
