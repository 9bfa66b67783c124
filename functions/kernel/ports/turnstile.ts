import { randomUUID } from 'node:crypto';
import { logger } from '../logger.ts';
import { refreshSiteSecret, siteSecret } from '../site-secrets.ts';

/** Cloudflare's documented dummy token: what its test site keys produce. Only it passes without a secret. */
export const TURNSTILE_DUMMY_TOKEN = 'XXXX.DUMMY.TOKEN.XXXX';
export const TURNSTILE_SITEVERIFY_URL = 'https://challenges.cloudflare.com/turnstile/v0/siteverify';
const TIMEOUT_MS = 5_000;

/**
 * Verifies a Turnstile token server-side (Cloudflare siteverify, with the visitor's IP and an
 * idempotency key so a retried call is not counted as a replay). Without a configured secret, which
 * only the local stack may lack, only {@link TURNSTILE_DUMMY_TOKEN} passes; in Lambda a missing secret
 * throws (CDK always sets TURNSTILE_SECRET_ARN). A Cloudflare outage refuses the token: nothing is
 * written unverified. The answer keeps the `hostname` the token was solved on and its widget's
 * `action`, for the caller to check against the key's origins and the form. The secret is the one
 * Secrets Manager holds now: re-read every few minutes, and at once when Cloudflare refuses the key
 * this container holds (a key rotated in Cloudflare and put by the operator), then tried again.
 */
export interface TurnstileOutcome {
  success: boolean;
  hostname?: string | undefined;
  action?: string | undefined;
}

/** Cloudflare's answers that blame the secret key, not the token: the key held may be outdated. */
const SECRET_ERRORS = new Set(['invalid-input-secret', 'missing-input-secret']);

interface Siteverify extends TurnstileOutcome {
  errors: string[];
}

async function siteverify(secret: string, token: string, remoteIp: string | undefined): Promise<Siteverify> {
  const form = new URLSearchParams({ secret, response: token, idempotency_key: randomUUID() });
  if (remoteIp) form.set('remoteip', remoteIp);
  try {
    // undici is loaded by the first verification only: the site functions that never verify a
    // token (every read) do not parse it at cold start.
    const { fetch } = await import('undici');
    const response = await fetch(TURNSTILE_SITEVERIFY_URL, {
      method: 'POST',
      body: form,
      signal: AbortSignal.timeout(TIMEOUT_MS),
    });
    const outcome = (await response.json()) as {
      success?: boolean;
      hostname?: unknown;
      action?: unknown;
      'error-codes'?: string[];
    };
    return {
      success: outcome.success === true,
      errors: outcome['error-codes'] ?? [],
      ...(typeof outcome.hostname === 'string' ? { hostname: outcome.hostname } : {}),
      ...(typeof outcome.action === 'string' ? { action: outcome.action } : {}),
    };
  } catch (error) {
    logger.warn('turnstile siteverify failed', { error: (error as Error).message });
    return { success: false, errors: [] };
  }
}

export async function verifyTurnstile(
  token: string,
  remoteIp: string | undefined,
): Promise<TurnstileOutcome> {
  const secret = await siteSecret('turnstile');
  if (secret === undefined) {
    if (process.env.AWS_LAMBDA_FUNCTION_NAME)
      throw new Error('No Turnstile secret: set TURNSTILE_SECRET_ARN');
    return { success: token === TURNSTILE_DUMMY_TOKEN };
  }
  let outcome = await siteverify(secret, token, remoteIp);
  if (!outcome.success && outcome.errors.some((code) => SECRET_ERRORS.has(code))) {
    // Cloudflare refuses the key itself: an operator may have put a new one since this container
    // read it. Read it again (rate-limited, site-secrets.ts) and verify once more with a new key.
    const fresh = (await refreshSiteSecret('turnstile'))?.current;
    logger.warn('turnstile secret refused by Cloudflare', {
      reread: fresh !== undefined && fresh !== secret,
    });
    if (fresh !== undefined && fresh !== secret) outcome = await siteverify(fresh, token, remoteIp);
  }
  if (!outcome.success) logger.info('turnstile refused', { errors: outcome.errors });
  const { errors: _errors, ...answer } = outcome;
  return answer;
}
