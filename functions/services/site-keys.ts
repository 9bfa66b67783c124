import { randomUUID } from 'node:crypto';
import {
  type ApiKeyRecord,
  createApiKey,
  findApiKeyById,
  listApiKeys,
  revokeApiKey,
  setApiKeyOrigins,
} from '../data/api-keys.ts';
import { displayPrefix, generatePublishableKey, hashSecretKey } from '../domain/api-key-secret.ts';
import { parseOrigins } from '../domain/origins.ts';
import { NotFoundError } from '../kernel/errors.ts';
import { AdminInputError } from './tenants.ts';

/** The allowed origins of a `--origins` list; one bad origin refuses them all, so none is dropped unseen. */
function originsOrFail(value: string): string[] {
  const parsed = parseOrigins(value);
  if (parsed.problems.length > 0) throw new AdminInputError(`--origins: ${parsed.problems.join('; ')}`);
  return parsed.origins;
}

/** Issues a publishable key for the origins given. The key is returned here once; only its hash is kept. */
export async function issueSiteKey(input: {
  tenantId: string;
  origins: string;
  name?: string | undefined;
}): Promise<{ record: ApiKeyRecord; key: string }> {
  const origins = originsOrFail(input.origins);
  if (input.name !== undefined && !input.name.trim()) throw new AdminInputError('--name must not be empty');
  const key = generatePublishableKey();
  const record: ApiKeyRecord = {
    keyHash: hashSecretKey(key),
    id: randomUUID(),
    tenantId: input.tenantId,
    kind: 'publishable',
    name: input.name?.trim() || 'website',
    scopes: [],
    origins,
    displayPrefix: displayPrefix(key),
    createdAt: new Date().toISOString(),
  };
  await createApiKey(record);
  return { record, key };
}

async function requireSiteKey(tenantId: string, id: string): Promise<ApiKeyRecord> {
  const record = await findApiKeyById(tenantId, id);
  if (!record || record.kind !== 'publishable')
    throw new NotFoundError(`No publishable key ${id} in this tenant`);
  return record;
}

/** Replaces the origins of a publishable key (a revoked one cannot be edited). */
export async function updateSiteKeyOrigins(
  tenantId: string,
  id: string,
  origins: string,
): Promise<ApiKeyRecord> {
  const parsed = originsOrFail(origins);
  const record = await requireSiteKey(tenantId, id);
  if (record.revokedAt) throw new AdminInputError(`The publishable key ${id} is revoked`);
  return setApiKeyOrigins(record, parsed);
}

/** Revokes a publishable key: its calls answer 404 from then on (within the auth cache's minute). */
export async function revokeSiteKey(tenantId: string, id: string): Promise<ApiKeyRecord> {
  const record = await requireSiteKey(tenantId, id);
  return record.revokedAt ? record : revokeApiKey(record, new Date().toISOString());
}

/** A key as the console lists it: never the key itself. */
export function presentKey(k: ApiKeyRecord) {
  const kind = k.kind ?? 'secret';
  return {
    id: k.id,
    name: k.name,
    kind,
    scopes: kind === 'secret' ? k.scopes : [],
    origins: kind === 'publishable' ? (k.origins ?? []) : [],
    created_at: k.createdAt,
    expires_at: k.expiresAt ?? null,
    revoked_at: k.revokedAt ?? null,
    exposed_at: k.exposedAt ?? null,
  };
}

/** Every key of the Tenant, secret and publishable, oldest first. */
export async function listKeys(tenantId: string) {
  const keys = await listApiKeys(tenantId);
  return keys
    .sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id))
    .map(presentKey);
}
