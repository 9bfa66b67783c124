import { randomUUID } from 'node:crypto';
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { DeleteCommand, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { dynamo, tableName } from './client.ts';
import { IdempotencyRecord } from './entities/idempotency-record.ts';
import { isConditionalFailure } from './errors.ts';

export interface IdempotencyScope {
  tenantId: string;
  apiKeyId: string;
  idempotencyKey: string;
}

export interface StoredResponse {
  statusCode: number;
  headers: Record<string, string>;
  body?: string;
}

export type AcquireOutcome =
  | {
      outcome: 'acquired';
      /** What this request's created ids derive from (functions/kernel/ids.ts). */
      idSeed: string;
      /** An earlier run of this same request held the key and let its claim lapse: it may have committed. */
      resumed: boolean;
    }
  | { outcome: 'in_progress' }
  | { outcome: 'mismatch' }
  | { outcome: 'replay'; response: StoredResponse };

const REPLAY_HOURS = 24;
/**
 * An in-progress record older than this is presumed abandoned (a crashed invocation). It is longer
 * than any API function's timeout, so the run that claimed it has surely ended.
 */
const LOCK_MS = 60_000;

function keyOf(scope: IdempotencyScope): Record<string, string> {
  return IdempotencyRecord.get(scope).params<{ Key: Record<string, string> }>().Key;
}

/** The key's record as it is now (strongly consistent), or undefined. */
async function readRecord(scope: IdempotencyScope): Promise<Record<string, unknown> | undefined> {
  const { Item } = await dynamo().send(
    new GetCommand({ TableName: tableName(), Key: keyOf(scope), ConsistentRead: true }),
  );
  return Item;
}

/** Which records a claim may replace: none, an expired one, or (a takeover) one abandoned run's. */
type ClaimCondition = { kind: 'fresh' } | { kind: 'takeover'; abandonedLock: number; idSeed: string };

/**
 * Claims the key for this request with one conditional PutItem. When the key is held, the existing
 * record comes back with the failure (ReturnValuesOnConditionCheckFailure), so a replay costs no
 * extra read.
 *
 * A record left `in_progress` past its lock was abandoned by a run that died. If that run was this
 * same request (same fingerprint), the claim is taken over with the abandoned run's `idSeed`: the
 * retry derives the ids the first run used and finds what it committed. Another request taking over
 * gets a seed of its own.
 *
 * DynamoDB may lose the answer to a put that landed (a timeout, a 500): the SDK then sends it again,
 * and the retry fails its condition against the claim it made itself, or the error reaches this
 * function. Either way the record carries this request's `claimToken`, so the request knows the
 * claim is its own: without it, the request answered 409 "still being processed" for its own claim,
 * and so did every retry of the client for the minute of the lock.
 */
export async function acquireIdempotencyKey(
  scope: IdempotencyScope,
  fingerprint: string,
  nowMs: number,
  condition: ClaimCondition = { kind: 'fresh' },
): Promise<AcquireOutcome> {
  const nowSeconds = Math.floor(nowMs / 1000);
  const claimToken = randomUUID();
  const idSeed = condition.kind === 'takeover' ? condition.idSeed : randomUUID();
  const acquired = { outcome: 'acquired', idSeed, resumed: condition.kind === 'takeover' } as const;
  const { Item } = IdempotencyRecord.put({
    ...scope,
    fingerprint,
    claimToken,
    idSeed,
    state: 'in_progress',
    lockedUntil: nowMs + LOCK_MS,
    ttl: nowSeconds + REPLAY_HOURS * 3600,
  }).params<{ Item: Record<string, unknown> }>();
  const names = { '#ttl': 'ttl', '#state': 'state', '#lockedUntil': 'lockedUntil' };
  const guard =
    condition.kind === 'fresh'
      ? {
          ConditionExpression:
            'attribute_not_exists(pk) OR #ttl < :now OR (#state = :inProgress AND #lockedUntil < :nowMs AND #fingerprint <> :fingerprint)',
          ExpressionAttributeNames: { ...names, '#fingerprint': 'fingerprint' },
          ExpressionAttributeValues: {
            ':now': nowSeconds,
            ':inProgress': 'in_progress',
            ':nowMs': nowMs,
            ':fingerprint': fingerprint,
          },
        }
      : {
          // Only the abandoned claim it read: a second retry taking it over first wins, this one sees 409.
          ConditionExpression: '#state = :inProgress AND #lockedUntil = :abandonedLock',
          ExpressionAttributeNames: { '#state': 'state', '#lockedUntil': 'lockedUntil' },
          ExpressionAttributeValues: {
            ':inProgress': 'in_progress',
            ':abandonedLock': condition.abandonedLock,
          },
        };
  try {
    await dynamo().send(
      new PutCommand({
        TableName: tableName(),
        Item,
        ...guard,
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      }),
    );
    return acquired;
  } catch (error) {
    if (!isConditionalFailure(error)) {
      // The put may have landed and only its answer been lost: then the claim is this request's.
      const stored = await readRecord(scope).catch(() => undefined);
      if (stored?.claimToken === claimToken) return acquired;
      throw error;
    }
    // The document client does not unmarshall the item that comes back with a failed condition.
    const returned = (error as { Item?: Record<string, AttributeValue> }).Item;
    let existing: Record<string, unknown> | undefined = returned ? unmarshall(returned) : undefined;
    existing ??= await readRecord(scope);
    if (!existing) return acquireIdempotencyKey(scope, fingerprint, nowMs);
    // The SDK sent the put again after its answer was lost: the record it met is this request's claim.
    if (existing.claimToken === claimToken) return acquired;
    if (existing.fingerprint !== fingerprint) return { outcome: 'mismatch' };
    if (existing.state !== 'completed') {
      const lockedUntil = Number(existing.lockedUntil);
      if (condition.kind === 'fresh' && lockedUntil < nowMs) {
        return acquireIdempotencyKey(scope, fingerprint, nowMs, {
          kind: 'takeover',
          abandonedLock: lockedUntil,
          // A record claimed before seeds were kept has none: its run's ids cannot be found again.
          idSeed: typeof existing.idSeed === 'string' ? existing.idSeed : randomUUID(),
        });
      }
      return { outcome: 'in_progress' };
    }
    return {
      outcome: 'replay',
      response: {
        statusCode: Number(existing.responseStatus),
        headers: (existing.responseHeaders as Record<string, string>) ?? {},
        ...(typeof existing.responseBody === 'string' ? { body: existing.responseBody } : {}),
      },
    };
  }
}

export async function completeIdempotencyKey(
  scope: IdempotencyScope,
  response: StoredResponse,
): Promise<void> {
  await dynamo().send(
    new UpdateCommand({
      TableName: tableName(),
      Key: keyOf(scope),
      UpdateExpression:
        'SET #state = :completed, responseStatus = :status, responseHeaders = :headers, responseBody = :body',
      ExpressionAttributeNames: { '#state': 'state' },
      ExpressionAttributeValues: {
        ':completed': 'completed',
        ':status': response.statusCode,
        ':headers': response.headers,
        ':body': response.body ?? null,
      },
    }),
  );
}

/** Frees the key after a 5xx so that the client's retry runs the request again. */
export async function releaseIdempotencyKey(scope: IdempotencyScope): Promise<void> {
  await dynamo().send(new DeleteCommand({ TableName: tableName(), Key: keyOf(scope) }));
}
