import { createHash, randomBytes } from 'node:crypto';

export const SECRET_KEY_PREFIX = 'svc_live_';
export const PUBLISHABLE_KEY_PREFIX = 'svc_pk_';

/** A new secret: the prefix plus 32 random bytes, base64url (256 bits of entropy). */
export function generateSecretKey(): string {
  return SECRET_KEY_PREFIX + randomBytes(32).toString('base64url');
}

/**
 * Keys are stored and looked up by SHA-256. A plain hash (no salt, no KDF) is right here: the
 * secret is 256 random bits, so there is nothing to brute-force, and lookup must be one GetItem.
 */
export function hashSecretKey(secret: string): string {
  return createHash('sha256').update(secret).digest('hex');
}

/** What the console shows of a key: enough to recognise it, not enough to use it. */
export function displayPrefix(secret: string): string {
  return secret.slice(0, SECRET_KEY_PREFIX.length + 4);
}

/** A new publishable key: not secret (it sits in a web page), but unguessable all the same. */
export function generatePublishableKey(): string {
  return PUBLISHABLE_KEY_PREFIX + randomBytes(24).toString('base64url');
}
