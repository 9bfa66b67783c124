import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * Opaque, tamper-evident page cursors: base64url(JSON payload) + "." + HMAC. A cursor is bound to
 * the list it came from (`scope`) so that it cannot be replayed against another list or Tenant.
 */
export interface CursorPayload {
  /** The list and filter the cursor belongs to, e.g. "t1:properties:archived=0". */
  scope: string;
  /** Position: the last item's sort values. */
  position: Record<string, unknown>;
}

function sign(data: string, secret: string): string {
  return createHmac('sha256', secret).update(data).digest('base64url');
}

export function encodeCursor(payload: CursorPayload, secret: string): string {
  const data = Buffer.from(JSON.stringify(payload)).toString('base64url');
  return `${data}.${sign(data, secret)}`;
}

/** The payload, or undefined when the cursor is malformed, edited, or from another list. */
export function decodeCursor(cursor: string, scope: string, secret: string): CursorPayload | undefined {
  const [data, mac, extra] = cursor.split('.');
  if (!data || !mac || extra !== undefined) return undefined;
  const expected = Buffer.from(sign(data, secret));
  const given = Buffer.from(mac);
  if (expected.length !== given.length || !timingSafeEqual(expected, given)) return undefined;
  try {
    const payload = JSON.parse(Buffer.from(data, 'base64url').toString('utf8')) as CursorPayload;
    return payload.scope === scope && typeof payload.position === 'object' ? payload : undefined;
  } catch {
    return undefined;
  }
}
