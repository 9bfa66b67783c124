import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { dynamo, tableName } from './client.ts';
import { RateLimitWindow } from './entities/rate-limit-window.ts';
import { countersOfRefusal, isConditionalFailure } from './errors.ts';

export interface WindowCounts {
  tenantCount: number;
  keyCount: number;
  /**
   * False when a budget was already spent: nothing was counted, and the counts are the window's
   * current ones plus this request (so the refused budget reads as over its quota).
   */
  admitted: boolean;
}

/**
 * The window item's key per Tenant, for the current window only: ElectroDB builds it (its key
 * template stays the one source), once per Tenant and minute instead of on every request, where
 * building the query chain was a measurable share of a cached GET's CPU.
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
 *
 * The update is conditional on both budgets having room: a request refused by either spends
 * neither, so one key past its budget cannot spend the Tenant's budget for its other keys.
 * The refusal returns the item as it is (`ALL_OLD`): still one round trip.
 */
export async function countRequest(
  tenantId: string,
  apiKeyId: string,
  windowStart: number,
  windowSeconds: number,
  quotas: { key: number; tenant: number },
): Promise<WindowCounts> {
  const Key = windowKey(tenantId, windowStart);
  const keyCounter = `key_${apiKeyId}`;
  let Attributes: Record<string, unknown> | undefined;
  try {
    ({ Attributes } = await dynamo().send(
      new UpdateCommand({
        TableName: tableName(),
        Key,
        UpdateExpression:
          'ADD #tenantCount :one, #keyCount :one SET #ttl = if_not_exists(#ttl, :ttl), #tenantId = :tenantId, #windowStart = :windowStart, #e = :e, #v = :v',
        ConditionExpression:
          '(attribute_not_exists(#keyCount) OR #keyCount < :keyQuota) AND (attribute_not_exists(#tenantCount) OR #tenantCount < :tenantQuota)',
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        ExpressionAttributeNames: {
          '#tenantCount': 'tenantCount',
          '#keyCount': keyCounter,
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
          ':keyQuota': quotas.key,
          ':tenantQuota': quotas.tenant,
        },
        ReturnValues: 'UPDATED_NEW',
      }),
    ));
  } catch (error) {
    if (!isConditionalFailure(error)) throw error;
    const current = countersOfRefusal(error);
    return {
      tenantCount: (current.tenantCount ?? 0) + 1,
      keyCount: (current[keyCounter] ?? 0) + 1,
      admitted: false,
    };
  }
  return {
    tenantCount: Number(Attributes?.tenantCount ?? 1),
    keyCount: Number(Attributes?.[keyCounter] ?? 1),
    admitted: true,
  };
}
