import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { dynamo, tableName } from './client.ts';
import { RateLimitWindow } from './entities/rate-limit-window.ts';

export interface WindowCounts {
  tenantCount: number;
  keyCount: number;
}

/**
 * The window item's key per Tenant, for the current window only: ElectroDB builds it (its key
 * template stays the one source), once per Tenant and minute instead of on every request, where
 * building the query chain was a measurable share of a cached GET's CPU (issue 14).
 */
const windowKeys = new Map<string, { windowStart: number; Key: Record<string, string> }>();
const WINDOW_KEYS_LIMIT = 1000;

function windowKey(tenantId: string, windowStart: number): Record<string, string> {
  const cached = windowKeys.get(tenantId);
  if (cached?.windowStart === windowStart) return cached.Key;
  const { Key } = RateLimitWindow.get({ tenantId, windowStart }).params<{ Key: Record<string, string> }>();
  if (windowKeys.size >= WINDOW_KEYS_LIMIT) windowKeys.clear();
  windowKeys.set(tenantId, { windowStart, Key });
  return Key;
}

/**
 * Counts one request against the Tenant's budget and the API key's budget of the current window
 * with a single UpdateItem (one write, one round trip). The key counter is a top-level attribute
 * named after the key, which ElectroDB cannot address, hence the raw update on ElectroDB's key.
 */
export async function countRequest(
  tenantId: string,
  apiKeyId: string,
  windowStart: number,
  windowSeconds: number,
): Promise<WindowCounts> {
  const Key = windowKey(tenantId, windowStart);
  const { Attributes } = await dynamo().send(
    new UpdateCommand({
      TableName: tableName(),
      Key,
      UpdateExpression:
        'ADD #tenantCount :one, #keyCount :one SET #ttl = if_not_exists(#ttl, :ttl), #tenantId = :tenantId, #windowStart = :windowStart, #e = :e, #v = :v',
      ExpressionAttributeNames: {
        '#tenantCount': 'tenantCount',
        '#keyCount': `key_${apiKeyId}`,
        '#ttl': 'ttl',
        '#tenantId': 'tenantId',
        '#windowStart': 'windowStart',
        '#e': '__edb_e__',
        '#v': '__edb_v__',
      },
      ExpressionAttributeValues: {
        ':one': 1,
        ':ttl': windowStart + windowSeconds * 2,
        ':tenantId': tenantId,
        ':windowStart': windowStart,
        ':e': 'rateLimitWindow',
        ':v': '1',
      },
      ReturnValues: 'UPDATED_NEW',
    }),
  );
  return {
    tenantCount: Number(Attributes?.tenantCount ?? 1),
    keyCount: Number(Attributes?.[`key_${apiKeyId}`] ?? 1),
  };
}
