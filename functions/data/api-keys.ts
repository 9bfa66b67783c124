import type { EntityItem } from 'electrodb';
import { ApiKey } from './entities/api-key.ts';
import { isConditionalFailure } from './errors.ts';

export type ApiKeyRecord = EntityItem<typeof ApiKey>;

/**
 * The key with this hash. A miss is read again strongly consistently: a key issued a moment ago
 * must work at once, and only unknown keys (rare, and refused anyway) pay the second read.
 */
export async function findApiKeyByHash(keyHash: string): Promise<ApiKeyRecord | undefined> {
  const { data } = await ApiKey.get({ keyHash }).go();
  if (data) return data;
  const { data: confirmed } = await ApiKey.get({ keyHash }).go({ consistent: true });
  return confirmed ?? undefined;
}

export async function findApiKeyById(tenantId: string, id: string): Promise<ApiKeyRecord | undefined> {
  const { data } = await ApiKey.query.byTenant({ tenantId, id }).go({ limit: 1 });
  return data[0];
}

/**
 * The key by id as it is now: the Tenant index (eventually consistent) gives its hash, which never
 * changes, and the item itself is then read consistently, so a revocation or expiry written a moment
 * ago is seen. For decisions that must not trust a cached or lagging copy (webhook subscribers).
 */
export async function findApiKeyByIdConsistently(
  tenantId: string,
  id: string,
): Promise<ApiKeyRecord | undefined> {
  const indexed = await findApiKeyById(tenantId, id);
  if (!indexed) return undefined;
  const { data } = await ApiKey.get({ keyHash: indexed.keyHash }).go({ consistent: true });
  return data ?? undefined;
}

export async function createApiKey(record: ApiKeyRecord): Promise<ApiKeyRecord> {
  await ApiKey.create(record).go();
  return record;
}

export async function revokeApiKey(record: ApiKeyRecord, revokedAt: string): Promise<ApiKeyRecord> {
  const { data } = await ApiKey.patch({ keyHash: record.keyHash })
    .set({ revokedAt })
    .go({ response: 'all_new' });
  return data as ApiKeyRecord;
}

/** Every key of a Tenant, secret and publishable, revoked ones included (the console's list). */
export async function listApiKeys(tenantId: string): Promise<ApiKeyRecord[]> {
  const { data } = await ApiKey.query.byTenant({ tenantId }).go({ pages: 'all' });
  return data;
}

/** Replaces a publishable key's origins. */
export async function setApiKeyOrigins(record: ApiKeyRecord, origins: string[]): Promise<ApiKeyRecord> {
  const { data } = await ApiKey.patch({ keyHash: record.keyHash })
    .set({ origins })
    .go({ response: 'all_new' });
  return data as ApiKeyRecord;
}

/**
 * Marks a secret key as exposed (seen in a URL), once: the first sighting is kept. The key keeps
 * working; revoking it is the Tenant Admin's call.
 */
export async function markApiKeyExposed(keyHash: string, exposedAt: string): Promise<void> {
  await ApiKey.patch({ keyHash })
    .set({ exposedAt })
    .where(({ exposedAt: current }, { notExists }) => notExists(current))
    .go()
    .catch((error: unknown) => {
      // Already marked (the condition failed): nothing to do.
      if (!isConditionalFailure(error)) throw error;
    });
}
