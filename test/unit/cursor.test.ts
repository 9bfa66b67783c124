import { describe, expect, it } from 'vitest';
import { type CursorPayload, decodeCursor, encodeCursor } from '../../functions/domain/cursor.ts';

const SECRET = 'unit-test-cursor-secret-0123456789';
const payload: CursorPayload = {
  scope: 't1:properties:false:',
  position: { updatedAt: '2024-05-01T10:00:00.000Z', id: '6f1c2b8e-8c1a-4a43-9c77-0d6c1c2f3a4b' },
};

/** Flips one character of a base64url string to another valid one. */
function flip(text: string, index: number): string {
  const c = text[index];
  return text.slice(0, index) + (c === 'A' ? 'B' : 'A') + text.slice(index + 1);
}

describe('page cursors', () => {
  it('round-trips the payload for the same scope and secret', () => {
    // Act
    const cursor = encodeCursor(payload, SECRET);
    // Assess
    expect(cursor).toMatch(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
    expect(decodeCursor(cursor, payload.scope, SECRET)).toEqual(payload);
  });

  it('is opaque: the position is not readable as plain text', () => {
    const cursor = encodeCursor(payload, SECRET);
    expect(cursor).not.toContain(payload.scope);
  });

  it('rejects a cursor whose data was edited', () => {
    // Prepare: a cursor that points elsewhere, signed with the old MAC
    const [, mac] = encodeCursor(payload, SECRET).split('.');
    const forged = Buffer.from(
      JSON.stringify({ ...payload, position: { updatedAt: '1970-01-01T00:00:00.000Z', id: 'x' } }),
    ).toString('base64url');
    // Act / Assess
    expect(decodeCursor(`${forged}.${mac}`, payload.scope, SECRET)).toBeUndefined();
    const cursor = encodeCursor(payload, SECRET);
    expect(decodeCursor(flip(cursor, 3), payload.scope, SECRET)).toBeUndefined();
  });

  it('rejects a cursor whose signature was edited or cut', () => {
    const cursor = encodeCursor(payload, SECRET);
    expect(decodeCursor(flip(cursor, cursor.length - 2), payload.scope, SECRET)).toBeUndefined();
    expect(decodeCursor(cursor.slice(0, -1), payload.scope, SECRET)).toBeUndefined();
  });

  it('rejects a cursor from another list or tenant', () => {
    const cursor = encodeCursor(payload, SECRET);
    expect(decodeCursor(cursor, 't2:properties:false:', SECRET)).toBeUndefined();
    expect(decodeCursor(cursor, 't1:properties:true:', SECRET)).toBeUndefined();
  });

  it('rejects a cursor signed with another secret', () => {
    const cursor = encodeCursor(payload, 'another-secret-of-enough-length');
    expect(decodeCursor(cursor, payload.scope, SECRET)).toBeUndefined();
  });

  it.each(['', '.', 'abc', 'abc.', '.abc', 'a.b.c', 'not a cursor at all'])(
    'rejects the malformed %j',
    (cursor) => {
      expect(decodeCursor(cursor, payload.scope, SECRET)).toBeUndefined();
    },
  );

  it('rejects a properly signed cursor whose data is not a payload', () => {
    // Prepare: signed, but not JSON / not an object
    const signedGarbage = encodeCursor('nonsense' as unknown as CursorPayload, SECRET);
    const [, mac] = encodeCursor(payload, SECRET).split('.');
    // Act / Assess
    expect(decodeCursor(signedGarbage, payload.scope, SECRET)).toBeUndefined();
    expect(decodeCursor(`bm90IGpzb24.${mac}`, payload.scope, SECRET)).toBeUndefined();
  });
});
