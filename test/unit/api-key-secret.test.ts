import { describe, expect, it } from 'vitest';
import {
  displayPrefix,
  generateSecretKey,
  hashSecretKey,
  PUBLISHABLE_KEY_PREFIX,
  SECRET_KEY_PREFIX,
} from '../../functions/domain/api-key-secret.ts';

describe('secret API keys', () => {
  it('carry the svc_live_ prefix and 32 random bytes in base64url', () => {
    // Act
    const secret = generateSecretKey();
    // Assess
    expect(SECRET_KEY_PREFIX).toBe('svc_live_');
    expect(PUBLISHABLE_KEY_PREFIX).toBe('svc_pk_');
    expect(secret.startsWith('svc_live_')).toBe(true);
    const random = secret.slice('svc_live_'.length);
    expect(random).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(Buffer.from(random, 'base64url')).toHaveLength(32);
  });

  it('are different every time', () => {
    const secrets = new Set(Array.from({ length: 50 }, generateSecretKey));
    expect(secrets.size).toBe(50);
  });

  it('hash deterministically to SHA-256 hex that does not contain the secret', () => {
    // Prepare
    const secret = generateSecretKey();
    // Act
    const hash = hashSecretKey(secret);
    // Assess
    expect(hash).toMatch(/^[0-9a-f]{64}$/);
    expect(hashSecretKey(secret)).toBe(hash);
    expect(hash).not.toBe(secret);
    expect(hash).not.toContain(secret.slice(SECRET_KEY_PREFIX.length, SECRET_KEY_PREFIX.length + 8));
    expect(hashSecretKey(`${secret}x`)).not.toBe(hash);
  });

  it('hash to the known SHA-256 vector', () => {
    expect(hashSecretKey('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });

  it('show only the prefix and four characters in the console', () => {
    const secret = generateSecretKey();
    const shown = displayPrefix(secret);
    expect(shown).toBe(secret.slice(0, 13));
    expect(shown.startsWith('svc_live_')).toBe(true);
    expect(shown.length).toBe(13);
  });
});
