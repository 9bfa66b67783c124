import { randomUUID } from 'node:crypto';
import { type ApiKeyRecord, createApiKey, findApiKeyById, revokeApiKey } from '../data/api-keys.ts';
import { displayPrefix, generateSecretKey, hashSecretKey } from '../domain/api-key-secret.ts';
import { isScope, SCOPES } from '../domain/scopes.ts';
import { NotFoundError } from '../kernel/errors.ts';
import { AdminInputError } from './tenants.ts';
import { disableEndpointsOfKey } from './webhook-endpoints.ts';

export function parseScopes(value: string): string[] {
  const scopes = [
    ...new Set(
      value
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean),
    ),
  ];
  if (scopes.length === 0) throw new AdminInputError(`--scopes needs at least one of: ${SCOPES.join(', ')}`);
  const bad = scopes.find((s) => !isScope(s));
  if (bad) throw new AdminInputError(`Unknown scope "${bad}"; valid scopes: ${SCOPES.join(', ')}`);
  return scopes;
}

/** Issues a secret key. The secret is returned here once and never stored: only its hash is. */
export async function issueApiKey(input: {
  tenantId: string;
  name: string;
  scopes: string[];
  expiresAt?: string;
}): Promise<{ record: ApiKeyRecord; secret: string }> {
  if (!input.name.trim()) throw new AdminInputError('--name must not be empty');
  if (input.expiresAt !== undefined && Number.isNaN(Date.parse(input.expiresAt))) {
    throw new AdminInputError('--expires-at must be an ISO 8601 date-time');
  }
  const secret = generateSecretKey();
  const record: ApiKeyRecord = {
    keyHash: hashSecretKey(secret),
    id: randomUUID(),
    tenantId: input.tenantId,
    kind: 'secret',
    name: input.name.trim(),
    scopes: input.scopes,
    displayPrefix: displayPrefix(secret),
    createdAt: new Date().toISOString(),
    ...(input.expiresAt ? { expiresAt: new Date(input.expiresAt).toISOString() } : {}),
  };
  await createApiKey(record);
  return { record, secret };
}

/** Revokes a key and disables the webhook endpoints it subscribed, as the API promises; says how many. */
export async function revokeApiKeyById(
  tenantId: string,
  id: string,
): Promise<ApiKeyRecord & { webhooksDisabled: number }> {
  const record = await findApiKeyById(tenantId, id);
  if (!record) throw new NotFoundError(`No API key ${id} in this tenant`);
  const revoked = record.revokedAt ? record : await revokeApiKey(record, new Date().toISOString());
  // Also on a repeated revoke: an earlier one may have stopped between the two writes.
  return { ...revoked, webhooksDisabled: await disableEndpointsOfKey(tenantId, id) };
}
