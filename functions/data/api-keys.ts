import type { EntityItem } from 'electrodb';
import { ApiKey } from './entities/api-key.ts';
import { UniqueClaim } from './entities/unique-claim.ts';
import { isConditionalFailure } from './errors.ts';
import { apiKeyWrites } from './service.ts';
import { writeTransaction } from './transactions.ts';

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
 * The key by id as it is now, for decisions that must not trust a cached or lagging copy (webhook
 * subscribers): its id claim gives its hash, which never changes, and the item itself is then read,
 * both strongly consistent, so a key issued a moment ago is found and a revocation or expiry written
 * a moment ago is seen. A key issued before id claims existed is found through the Tenant index.
 */
export async function findApiKeyByIdConsistently(
  tenantId: string,
  id: string,
): Promise<ApiKeyRecord | undefined> {
  const { data: claim } = await UniqueClaim.get({ scope: `t#${tenantId}`, kind: 'api-key-id', value: id }).go(
    {
      consistent: true,
    },
  );
  const keyHash = claim?.ownerId ?? (await findApiKeyById(tenantId, id))?.keyHash;
  if (!keyHash) return undefined;
  const { data } = await ApiKey.get({ keyHash }).go({ consistent: true });
  return data ?? undefined;
}

/** Stores a new key with the claim that finds it by id, in one transaction. */
export async function createApiKey(record: ApiKeyRecord): Promise<ApiKeyRecord> {
  const result = await writeTransaction(() =>
    apiKeyWrites()
      .transaction.write(({ ApiKey: key, UniqueClaim: claim }) => [
        key.create(record).commit(),
        claim
          .create({
            scope: `t#${record.tenantId}`,
            kind: 'api-key-id',
            value: record.id,
            ownerId: record.keyHash,
            createdAt: record.createdAt,
          })
          .commit(),
      ])
      .go(),
  );
  if (result.canceled) throw new Error(`API key ${record.id} already exists`);
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
