import type { EntityItem } from 'electrodb';
import { ApiKey } from './entities/api-key.ts';

export type ApiKeyRecord = EntityItem<typeof ApiKey>;

export async function findApiKeyByHash(keyHash: string): Promise<ApiKeyRecord | undefined> {
  const { data } = await ApiKey.get({ keyHash }).go();
  return data ?? undefined;
}

export async function findApiKeyById(tenantId: string, id: string): Promise<ApiKeyRecord | undefined> {
  const { data } = await ApiKey.query.byTenant({ tenantId, id }).go({ limit: 1 });
  return data[0];
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
