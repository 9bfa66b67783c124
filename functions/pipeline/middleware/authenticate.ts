import type { MiddlewareObj } from '@middy/core';
import type { Context } from 'aws-lambda';
import { ErrorOut } from '../../contract/errors.ts';
import { findApiKeyByHash } from '../../data/api-keys.ts';
import { getTenant } from '../../data/tenants.ts';
import { hashSecretKey, SECRET_KEY_PREFIX } from '../../domain/api-key-secret.ts';
import { config } from '../../kernel/config.ts';
import { UnauthorizedError } from '../../kernel/errors.ts';
import type { Caller } from '../../services/caller.ts';
import type { PipelineStep } from '../answers.ts';
import { type HttpEvent, header } from '../http.ts';
import { stateOf } from '../request-state.ts';

interface CacheEntry {
  caller: Caller;
  expiresAt?: string;
  cachedUntil: number;
}

/**
 * Verified keys, with their Tenant, for at most AUTH_CACHE_TTL_SECONDS (≤ 60 s): an authenticated
 * GET then costs no lookup, and a revocation or tenant change still bites within a minute.
 */
const cache = new Map<string, CacheEntry>();
const CACHE_LIMIT = 1000;

export function clearAuthCache(): void {
  cache.clear();
}

async function lookUp(keyHash: string): Promise<CacheEntry | undefined> {
  const apiKey = await findApiKeyByHash(keyHash);
  // The stored kind, not only the prefix: a publishable key's item never authenticates a secret call.
  if (!apiKey || apiKey.revokedAt || apiKey.kind !== 'secret') return undefined;
  const tenant = await getTenant(apiKey.tenantId);
  if (!tenant) return undefined;
  const { id, name, scopes, tenantId } = apiKey;
  return {
    caller: { tenant, apiKey: { id, name, scopes, tenantId } },
    ...(apiKey.expiresAt ? { expiresAt: apiKey.expiresAt } : {}),
    cachedUntil: Date.now() + config().AUTH_CACHE_TTL_SECONDS * 1000,
  };
}

/** Step 2 of the chain: `Authorization: Bearer svc_live_…` → the caller, or 401. */
export function authenticate(): MiddlewareObj<HttpEvent, unknown, Error, Context> {
  return {
    before: async (request) => {
      const authorization = header(request.event, 'authorization');
      const match = authorization?.match(/^Bearer\s+(\S+)\s*$/i);
      const secret = match?.[1];
      if (!secret) throw new UnauthorizedError('Missing API key: send Authorization: Bearer <API_KEY>');
      if (!secret.startsWith(SECRET_KEY_PREFIX)) throw new UnauthorizedError('Invalid API key');

      const keyHash = hashSecretKey(secret);
      let entry = cache.get(keyHash);
      if (!entry || entry.cachedUntil <= Date.now()) {
        cache.delete(keyHash);
        entry = await lookUp(keyHash);
        if (!entry) throw new UnauthorizedError('Invalid API key');
        if (config().AUTH_CACHE_TTL_SECONDS > 0) {
          if (cache.size >= CACHE_LIMIT) cache.delete(cache.keys().next().value as string);
          cache.set(keyHash, entry);
        }
      }
      if (entry.expiresAt && Date.parse(entry.expiresAt) <= Date.now()) {
        throw new UnauthorizedError('API key expired');
      }
      stateOf(request.context).caller = entry.caller;
    },
  };
}

/** What step 2 can answer (documented on every operation). */
export const authenticateStep: PipelineStep = {
  name: 'authenticate',
  answers: () => ({
    401: {
      description: 'No API key, or an unknown, expired or revoked one',
      schema: ErrorOut,
      headers: {
        'WWW-Authenticate': {
          description: 'Always `Bearer`: the scheme to authenticate with',
          schema: { type: 'string' },
          required: true,
        },
      },
    },
  }),
};
