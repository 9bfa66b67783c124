import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type AttributeValue,
  ConditionalCheckFailedException,
  DynamoDBClient,
  InternalServerError,
  TransactionCanceledException,
} from '@aws-sdk/client-dynamodb';
import {
  BatchGetCommand,
  BatchWriteCommand,
  DeleteCommand,
  DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  QueryCommand,
  TransactWriteCommand,
} from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { describe, expect, it } from 'vitest';
import {
  addDynamoFaults,
  DEFAULT_DYNAMO_FAULTS,
  type DynamoFaultSettings,
  describeDynamoFaults,
  dynamoFaultSettingsFromEnv,
  exactCondition,
  settleDynamoWrites,
  withDynamoFaults,
} from '../../scripts/local/dynamodb-faults.ts';

type Marshalled = Record<string, AttributeValue>;

/** The fields of a request body the fake reads. */
interface RequestBody {
  Key: Marshalled;
  Item: Marshalled;
  ExpressionAttributeValues: Record<string, AttributeValue>;
  RequestItems: Record<string, { Keys: Marshalled[] }>;
  TransactItems: { Put?: { Item: Marshalled } }[];
  ReturnValues?: string;
  IndexName?: string;
  ConditionExpression?: string;
}

/** What the fake answers a put whose `attribute_not_exists(pk)` condition fails. */
class ConditionFailed extends Error {}

/** A BatchWriteItem's requests of one table, as sent. */
type WriteRequests = { PutRequest?: { Item: Marshalled }; DeleteRequest?: { Key: Marshalled } }[];

/**
 * A DynamoDB reduced to what these tests send, behind the SDK's real middleware stack (serialization,
 * retries, deserialization): the client's request handler answers from an in-memory table.
 */
function fakeDynamo(items = new Map<string, Marshalled>()) {
  const requests: string[] = [];
  const id = (key: Marshalled) => `${key.pk?.S}|${key.sk?.S}`;
  const answer = (operation: string, body: RequestBody): unknown => {
    switch (operation) {
      case 'GetItem': {
        const item = items.get(id(body.Key));
        return item ? { Item: item } : {};
      }
      case 'PutItem':
      case 'DeleteItem': {
        const key = id(operation === 'PutItem' ? body.Item : body.Key);
        const old = items.get(key);
        // The one condition the fake knows: a put of an item that must not exist yet.
        if (body.ConditionExpression === 'attribute_not_exists(pk)' && old) throw new ConditionFailed();
        if (operation === 'PutItem') items.set(key, body.Item);
        else items.delete(key);
        return body.ReturnValues === 'ALL_OLD' && old ? { Attributes: old } : {};
      }
      case 'Query': {
        // The table by `pk`, or the index gsi1 by its partition key `gsi1pk`, always as `:pk`.
        const pk = body.ExpressionAttributeValues[':pk']?.S;
        const partition = body.IndexName === 'gsi1' ? 'gsi1pk' : 'pk';
        const found = [...items.values()].filter((item) => item[partition]?.S === pk);
        return { Items: found, Count: found.length, ScannedCount: found.length };
      }
      case 'BatchGetItem': {
        const Responses: Record<string, Marshalled[]> = {};
        for (const [table, request] of Object.entries(body.RequestItems)) {
          Responses[table] = request.Keys.flatMap((key): Marshalled[] => {
            const item = items.get(id(key));
            return item ? [item] : [];
          });
        }
        return { Responses, UnprocessedKeys: {} };
      }
      case 'BatchWriteItem': {
        const writes = body.RequestItems as unknown as Record<string, WriteRequests>;
        for (const requests of Object.values(writes)) {
          for (const { PutRequest, DeleteRequest } of requests) {
            if (PutRequest) items.set(id(PutRequest.Item), PutRequest.Item);
            if (DeleteRequest) items.delete(id(DeleteRequest.Key));
          }
        }
        return { UnprocessedItems: {} };
      }
      case 'TransactWriteItems':
        for (const member of body.TransactItems)
          if (member.Put) items.set(id(member.Put.Item), member.Put.Item);
        return {};
      default:
        throw new Error(`the fake does not answer ${operation}`);
    }
  };
  const dynamo = new DynamoDBClient({
    region: 'us-east-1',
    endpoint: 'http://dynamodb.fake',
    credentials: { accessKeyId: 'fake', secretAccessKey: 'fake' },
    requestHandler: {
      handle: async (request: { headers: Record<string, string>; body: Uint8Array | string }) => {
        const operation = String(request.headers['x-amz-target']).split('.')[1] as string;
        requests.push(operation);
        const sent = typeof request.body === 'string' ? request.body : new TextDecoder().decode(request.body);
        let answered: unknown;
        let statusCode = 200;
        try {
          answered = answer(operation, JSON.parse(sent));
        } catch (error) {
          if (!(error instanceof ConditionFailed)) throw error;
          statusCode = 400;
          answered = {
            __type: 'com.amazonaws.dynamodb.v20120810#ConditionalCheckFailedException',
            message: 'The conditional request failed',
          };
        }
        const body = JSON.stringify(answered);
        return {
          response: {
            statusCode,
            headers: { 'content-type': 'application/x-amz-json-1.0' },
            body: new TextEncoder().encode(body),
          },
        };
      },
    } as never,
  });
  const client = DynamoDBDocumentClient.from(dynamo);
  const readCurrent = async (_table: string, keys: Record<string, unknown>[]) =>
    keys.map((key) => {
      const item = items.get(`${key.pk}|${key.sk}`);
      return item ? unmarshall(item) : undefined;
    });
  return { client, items, requests, readCurrent };
}

const NO_FAULTS: DynamoFaultSettings = {
  seed: 1,
  staleMs: 500,
  staleRate: 0,
  conflictRate: 0,
  throttleRate: 0,
  pastRetriesRate: 0,
  unprocessedRate: 0,
  ambiguousRate: 0,
};

/** A fake DynamoDB with the faults on, and a clock the test moves. */
function faulted(
  settings: Partial<DynamoFaultSettings>,
  shared: { items?: Map<string, Marshalled>; clock?: { ms: number } } = {},
) {
  const fake = fakeDynamo(shared.items);
  const clock = shared.clock ?? { ms: 10_000 };
  const log = addDynamoFaults(
    fake.client,
    { ...NO_FAULTS, ...settings },
    { readCurrent: fake.readCurrent, now: () => clock.ms, indexKeys: { gsi1: ['gsi1pk', 'gsi1sk'] } },
  );
  return { ...fake, clock, log };
}

const TABLE = 'table';
const put = (item: Record<string, unknown>) => new PutCommand({ TableName: TABLE, Item: item });
const get = (sk: string, consistent?: boolean) =>
  new GetCommand({ TableName: TABLE, Key: { pk: 'p', sk }, ...(consistent ? { ConsistentRead: true } : {}) });
const query = () =>
  new QueryCommand({
    TableName: TABLE,
    KeyConditionExpression: 'pk = :pk',
    ExpressionAttributeValues: { ':pk': 'p' },
  });

describe('eventual consistency', () => {
  it('answers a non-consistent GetItem as of the window start, a consistent one as written', async () => {
    // Prepare: v1 written long ago, v2 just now.
    const { client, clock, log } = faulted({ staleRate: 1 });
    await client.send(put({ pk: 'p', sk: 'a', v: 1 }));
    clock.ms += 2_000;
    await client.send(put({ pk: 'p', sk: 'a', v: 2 }));
    clock.ms += 100;
    // Act
    const stale = await client.send(get('a'));
    const consistent = await client.send(get('a', true));
    clock.ms += 500;
    const later = await client.send(get('a'));
    // Assess
    expect(stale.Item).toEqual({ pk: 'p', sk: 'a', v: 1 });
    expect(consistent.Item).toEqual({ pk: 'p', sk: 'a', v: 2 });
    expect(later.Item).toEqual({ pk: 'p', sk: 'a', v: 2 });
    expect(log.events).toEqual(['stale GetItem']);
  });

  it('shows every write made before a settle (the index caught up), and still hides the ones after it', async () => {
    // Prepare: v1 long ago, v2 and a new item within the window, then the barrier, then v3.
    const { client, clock } = faulted({ staleRate: 1 });
    await client.send(put({ pk: 'p', sk: 'a', v: 1 }));
    clock.ms += 2_000;
    await client.send(put({ pk: 'p', sk: 'a', v: 2 }));
    await client.send(put({ pk: 'p', sk: 'b', v: 1 }));
    clock.ms += 100;
    const before = await client.send(query());
    // Act
    expect(settleDynamoWrites()).toBe(true);
    clock.ms += 1;
    const settled = await client.send(query());
    await client.send(put({ pk: 'p', sk: 'a', v: 3 }));
    clock.ms += 100;
    const after = await client.send(get('a'));
    // Assess: stale before the barrier, current after it, and a later write stale again.
    expect(before.Items).toEqual([{ pk: 'p', sk: 'a', v: 1 }]);
    expect(settled.Items).toEqual([
      { pk: 'p', sk: 'a', v: 2 },
      { pk: 'p', sk: 'b', v: 1 },
    ]);
    expect(after.Item).toEqual({ pk: 'p', sk: 'a', v: 2 });
  });

  it('leaves an item created within the window out of a Query and a GetItem, and keeps older ones', async () => {
    // Prepare
    const { client, clock } = faulted({ staleRate: 1 });
    await client.send(put({ pk: 'p', sk: 'old', v: 1 }));
    clock.ms += 1_000;
    await client.send(put({ pk: 'p', sk: 'new', v: 1 }));
    clock.ms += 100;
    // Act
    const listed = await client.send(query());
    const read = await client.send(get('new'));
    // Assess
    expect(listed.Items).toEqual([{ pk: 'p', sk: 'old', v: 1 }]);
    expect(listed.Count).toBe(1);
    expect(read.Item).toBeUndefined();
  });

  it('keeps the current image in a Query where the older one differs in an attribute the query names', async () => {
    // Prepare: the filter names `status`, which the last write changed.
    const { client, clock } = faulted({ staleRate: 1 });
    await client.send(put({ pk: 'p', sk: 'a', status: 'draft', v: 1 }));
    clock.ms += 1_000;
    await client.send(put({ pk: 'p', sk: 'a', status: 'live', v: 2 }));
    await client.send(put({ pk: 'p', sk: 'b', status: 'live', v: 1 }));
    clock.ms += 1_000;
    await client.send(put({ pk: 'p', sk: 'b', status: 'live', v: 2 }));
    // Act
    const listed = await client.send(
      new QueryCommand({
        TableName: TABLE,
        KeyConditionExpression: 'pk = :pk',
        FilterExpression: '#s = :live',
        ExpressionAttributeNames: { '#s': 'status' },
        ExpressionAttributeValues: { ':pk': 'p', ':live': 'live' },
      }),
    );
    // Assess: `a` as it is (its older image had another status); `b` as it was (same status).
    expect(listed.Items).toEqual([
      { pk: 'p', sk: 'a', status: 'live', v: 2 },
      { pk: 'p', sk: 'b', status: 'live', v: 1 },
    ]);
  });

  it('brings an item deleted within the window back to a BatchGetItem, with older images of the others', async () => {
    // Prepare
    const { client, clock } = faulted({ staleRate: 1 });
    await client.send(put({ pk: 'p', sk: 'a', v: 1 }));
    await client.send(put({ pk: 'p', sk: 'b', v: 1 }));
    clock.ms += 1_000;
    await client.send(new DeleteCommand({ TableName: TABLE, Key: { pk: 'p', sk: 'a' } }));
    await client.send(put({ pk: 'p', sk: 'b', v: 2 }));
    // Act
    const keys = [
      { pk: 'p', sk: 'a' },
      { pk: 'p', sk: 'b' },
    ];
    const stale = await client.send(new BatchGetCommand({ RequestItems: { [TABLE]: { Keys: keys } } }));
    const consistent = await client.send(
      new BatchGetCommand({ RequestItems: { [TABLE]: { Keys: keys, ConsistentRead: true } } }),
    );
    // Assess
    expect(stale.Responses?.[TABLE]).toEqual([
      { pk: 'p', sk: 'a', v: 1 },
      { pk: 'p', sk: 'b', v: 1 },
    ]);
    expect(consistent.Responses?.[TABLE]).toEqual([{ pk: 'p', sk: 'b', v: 2 }]);
  });
});

describe('transaction conflicts', () => {
  it('cancels a TransactWriteItems before sending it: one TransactionConflict reason, None for the others', async () => {
    // Prepare
    const { client, items, requests, log } = faulted({ conflictRate: 1 });
    const transaction = new TransactWriteCommand({
      TransactItems: ['a', 'b', 'c'].map((sk) => ({ Put: { TableName: TABLE, Item: { pk: 'p', sk } } })),
    });
    // Act
    const error = await client.send(transaction).catch((e: unknown) => e);
    // Assess
    expect(error).toBeInstanceOf(TransactionCanceledException);
    const codes = (error as TransactionCanceledException).CancellationReasons?.map((r) => r.Code);
    expect(codes).toHaveLength(3);
    expect(codes?.filter((code) => code === 'TransactionConflict')).toHaveLength(1);
    expect(codes?.filter((code) => code === 'None')).toHaveLength(2);
    expect(requests).toEqual([]);
    expect(items.size).toBe(0);
    expect(log.events).toEqual([expect.stringMatching(/^conflict [1-3]\/3$/)]);
  });
});

describe('throttling', () => {
  it("throttles a call's first attempt below the SDK's retry, which absorbs it", async () => {
    // Prepare
    const { client, requests, log } = faulted({ throttleRate: 1 });
    // Act
    const written = await client.send(put({ pk: 'p', sk: 'a', v: 1 }));
    // Assess: two attempts, the first refused before it was sent.
    expect(written.$metadata.attempts).toBe(2);
    expect(requests).toEqual(['PutItem']);
    expect(log.events).toEqual(['throttle PutItem']);
  });
});

describe('index lag (a stale Query on a GSI)', () => {
  /** A Query of gsi1's partition `x`, with an optional filter. */
  const queryIndex = (filter?: { expression: string; values: Record<string, unknown> }) =>
    new QueryCommand({
      TableName: TABLE,
      IndexName: 'gsi1',
      KeyConditionExpression: '#pk = :pk',
      ExpressionAttributeNames: { '#pk': 'gsi1pk' },
      ExpressionAttributeValues: { ':pk': 'x', ...filter?.values },
      ...(filter ? { FilterExpression: filter.expression } : {}),
    });

  it('leaves out an item that moved into the partition, and brings back one deleted from it', async () => {
    // Prepare: `kept` and `gone` in partition x long ago, `moved` in y; then `moved` moves to x and
    // `gone` is deleted, within the window.
    const { client, clock, log } = faulted({ staleRate: 1 });
    await client.send(put({ pk: 'p', sk: 'kept', gsi1pk: 'x', gsi1sk: '1' }));
    await client.send(put({ pk: 'p', sk: 'gone', gsi1pk: 'x', gsi1sk: '2' }));
    await client.send(put({ pk: 'p', sk: 'moved', gsi1pk: 'y', gsi1sk: '3' }));
    clock.ms += 2_000;
    await client.send(put({ pk: 'p', sk: 'moved', gsi1pk: 'x', gsi1sk: '3' }));
    await client.send(new DeleteCommand({ TableName: TABLE, Key: { pk: 'p', sk: 'gone' } }));
    clock.ms += 100;
    // Act
    const stale = await client.send(queryIndex());
    clock.ms += 1_000;
    const caughtUp = await client.send(queryIndex());
    // Assess
    expect(stale.Items).toEqual([
      { pk: 'p', sk: 'kept', gsi1pk: 'x', gsi1sk: '1' },
      { pk: 'p', sk: 'gone', gsi1pk: 'x', gsi1sk: '2' },
    ]);
    expect(stale.Count).toBe(2);
    expect(caughtUp.Items).toEqual([
      { pk: 'p', sk: 'kept', gsi1pk: 'x', gsi1sk: '1' },
      { pk: 'p', sk: 'moved', gsi1pk: 'x', gsi1sk: '3' },
    ]);
    expect(log.events).toEqual(['stale Query']);
  });

  it('brings a deleted item back only where the filter is one it evaluates exactly, and it held', async () => {
    // Prepare: two items of partition x deleted within the window, of two colours.
    const { client, clock } = faulted({ staleRate: 1 });
    await client.send(put({ pk: 'p', sk: 'red', gsi1pk: 'x', gsi1sk: '1', colour: 'red' }));
    await client.send(put({ pk: 'p', sk: 'blue', gsi1pk: 'x', gsi1sk: '2', colour: 'blue' }));
    clock.ms += 2_000;
    for (const sk of ['red', 'blue'])
      await client.send(new DeleteCommand({ TableName: TABLE, Key: { pk: 'p', sk } }));
    clock.ms += 100;
    // Act
    const red = await client.send(queryIndex({ expression: 'colour = :red', values: { ':red': 'red' } }));
    const either = await client.send(
      queryIndex({
        expression: 'colour = :red OR colour = :blue',
        values: { ':red': 'red', ':blue': 'blue' },
      }),
    );
    // Assess: the filter holds for `red` only; an `OR` is not evaluated, so nothing comes back.
    expect(red.Items).toEqual([{ pk: 'p', sk: 'red', gsi1pk: 'x', gsi1sk: '1', colour: 'red' }]);
    expect(either.Items).toEqual([]);
  });

  it('evaluates key conditions and filters as DynamoDB does, or not at all', () => {
    const values = { ':a': 'ab', ':n': 2, ':m': 5, ':t': true };
    const holds = (expression: string, item: Record<string, unknown>) =>
      exactCondition(expression, { '#s': 'sk' }, values)?.(item);
    expect(holds('begins_with(#s, :a) AND n BETWEEN :n AND :m', { sk: 'abc', n: 3 })).toBe(true);
    expect(holds('(begins_with(#s, :a)) AND (n > :m)', { sk: 'abc', n: 3 })).toBe(false);
    expect(holds('n >= :n', { n: '3' })).toBe(false);
    expect(holds('attribute_not_exists(gone) AND attribute_exists(n)', { n: 1 })).toBe(true);
    // By UTF-8 bytes: U+FF5E sorts before U+1F600, though its UTF-16 code unit is the larger.
    expect(exactCondition('s < :b', undefined, { ':b': '\u{1F600}' })?.({ s: '\uFF5E' })).toBe(true);
    for (const unevaluated of [
      'n <> :n',
      'NOT n = :n',
      'a.b = :a',
      'contains(s, :a)',
      'flag = :t',
      'n = :missing',
    ]) {
      expect(exactCondition(unevaluated, undefined, values)).toBeUndefined();
    }
  });
});

describe('across processes (a shared history)', () => {
  it("answers a read stale for another injector's write, through the shared directory", async () => {
    // Prepare: two injectors on one table and one clock, as two processes on one DynamoDB.
    const directory = mkdtempSync(join(tmpdir(), 'dynamodb-faults-'));
    const items = new Map<string, Marshalled>();
    const clock = { ms: 10_000 };
    const writer = faulted({ sharedDir: directory }, { items, clock });
    const reader = faulted({ sharedDir: directory, staleRate: 1 }, { items, clock });
    try {
      await writer.client.send(put({ pk: 'p', sk: 'a', v: 1 }));
      clock.ms += 2_000;
      await writer.client.send(put({ pk: 'p', sk: 'a', v: 2 }));
      await writer.client.send(put({ pk: 'p', sk: 'b', v: 1 }));
      clock.ms += 100;
      // Act
      const a = await reader.client.send(get('a'));
      const b = await reader.client.send(get('b'));
      clock.ms += 1_000;
      const later = await reader.client.send(get('b'));
      // Assess
      expect(a.Item).toEqual({ pk: 'p', sk: 'a', v: 1 });
      expect(b.Item).toBeUndefined();
      expect(later.Item).toEqual({ pk: 'p', sk: 'b', v: 1 });
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
  });
});

describe('unprocessed batch items', () => {
  it('leaves part of a BatchWriteItem unwritten and hands it back as UnprocessedItems', async () => {
    // Prepare
    const { client, items, log } = faulted({ unprocessedRate: 1 });
    const puts = ['a', 'b', 'c', 'd', 'e'].map((sk) => ({ PutRequest: { Item: { pk: 'p', sk } } }));
    // Act
    const answer = await client.send(new BatchWriteCommand({ RequestItems: { [TABLE]: puts } }));
    // Assess: from one to four unprocessed, none of them written, every other one written.
    const unprocessed = (answer.UnprocessedItems?.[TABLE] ?? []).map((r) => r.PutRequest?.Item?.sk);
    expect(unprocessed.length).toBeGreaterThanOrEqual(1);
    expect(unprocessed.length).toBeLessThanOrEqual(4);
    const written = [...items.values()].map((item) => item.sk?.S);
    expect(written.sort()).toEqual(['a', 'b', 'c', 'd', 'e'].filter((sk) => !unprocessed.includes(sk)));
    expect(log.events).toEqual([`unprocessed BatchWriteItem ${unprocessed.length}/5`]);
  });

  it('answers part of a BatchGetItem, the rest as UnprocessedKeys with the request', async () => {
    // Prepare
    const { client, log } = faulted({ unprocessedRate: 1 });
    for (const sk of ['a', 'b', 'c']) await client.send(put({ pk: 'p', sk }));
    const keys = ['a', 'b', 'c'].map((sk) => ({ pk: 'p', sk }));
    // Act
    const answer = await client.send(
      new BatchGetCommand({ RequestItems: { [TABLE]: { Keys: keys, ConsistentRead: true } } }),
    );
    // Assess
    const found = (answer.Responses?.[TABLE] ?? []).map((item) => item.sk);
    const unprocessed = answer.UnprocessedKeys?.[TABLE];
    expect(unprocessed?.ConsistentRead).toBe(true);
    const left = (unprocessed?.Keys ?? []).map((key) => key.sk);
    expect(left.length).toBeGreaterThanOrEqual(1);
    expect([...found, ...left].sort()).toEqual(['a', 'b', 'c']);
    expect(found.filter((sk) => left.includes(sk))).toEqual([]);
    expect(log.events).toEqual([`unprocessed BatchGetItem ${left.length}/3`]);
  });

  it('leaves a batch of one item whole (DynamoDB answers one it can do none of with a throttle)', async () => {
    // Prepare
    const { client, items, log } = faulted({ unprocessedRate: 1 });
    // Act
    const answer = await client.send(
      new BatchWriteCommand({ RequestItems: { [TABLE]: [{ PutRequest: { Item: { pk: 'p', sk: 'a' } } }] } }),
    );
    // Assess
    expect(answer.UnprocessedItems).toEqual({});
    expect(items.size).toBe(1);
    expect(log.events).toEqual([]);
  });
});

describe('throttling past the retries', () => {
  it('throws a throttle the caller sees once, above the retries, and sends nothing', async () => {
    // Prepare
    const { client, requests, log } = faulted({ pastRetriesRate: 1 });
    // Act
    const error = await client.send(get('a')).catch((e: unknown) => e);
    // Assess
    expect((error as Error).name).toMatch(/^(ProvisionedThroughputExceededException|ThrottlingException)$/);
    expect(requests).toEqual([]);
    expect(log.events).toEqual(['past-retries GetItem']);
  });
});

describe('ambiguous commits', () => {
  it("loses an attempt's answer after the write landed: the SDK sends it again and the call succeeds", async () => {
    // Prepare
    const { client, items, requests, log } = faulted({});
    // Act
    const written = await withDynamoFaults({ ambiguous: { count: 1, level: 'attempt' } }, () =>
      client.send(put({ pk: 'p', sk: 'a', v: 1 })),
    );
    // Assess: two attempts reached the table.
    expect(written.$metadata.attempts).toBe(2);
    expect(requests).toEqual(['PutItem', 'PutItem']);
    expect(items.size).toBe(1);
    expect(log.events).toEqual(['ambiguous attempt PutItem']);
  });

  it("loses the call's answer after the write landed: the caller gets a timeout, then a 500", async () => {
    // Prepare
    const { client, items, requests, log } = faulted({});
    // Act
    const [first, second] = await withDynamoFaults({ ambiguous: { count: 2, level: 'call' } }, async () => [
      await client.send(put({ pk: 'p', sk: 'a', v: 1 })).catch((e: unknown) => e),
      await client.send(put({ pk: 'p', sk: 'b', v: 1 })).catch((e: unknown) => e),
    ]);
    // Assess: each sent once, each landed, each answered with an error.
    expect((first as Error).name).toBe('TimeoutError');
    expect((first as { $metadata: { httpStatusCode?: number } }).$metadata.httpStatusCode).toBeUndefined();
    expect(second).toBeInstanceOf(InternalServerError);
    expect(requests).toEqual(['PutItem', 'PutItem']);
    expect(items.size).toBe(2);
    expect(log.events).toEqual(['ambiguous PutItem', 'ambiguous PutItem']);
  });

  it('fails a conditional write sent again against its own first landing, which a stale read still hides', async () => {
    // Prepare
    const { client, clock, items, requests } = faulted({ staleRate: 1 });
    // Act
    const error = await withDynamoFaults({ ambiguous: { count: 1, level: 'attempt' } }, () =>
      client.send(
        new PutCommand({
          TableName: TABLE,
          Item: { pk: 'p', sk: 'a', v: 1 },
          ConditionExpression: 'attribute_not_exists(pk)',
        }),
      ),
    ).catch((e: unknown) => e);
    clock.ms += 100;
    const stale = await client.send(get('a'));
    // Assess: the retry met the item its first attempt wrote; the write is recorded all the same.
    expect(error).toBeInstanceOf(ConditionalCheckFailedException);
    expect(requests).toEqual(['PutItem', 'PutItem', 'GetItem']);
    expect(items.size).toBe(1);
    expect(stale.Item).toBeUndefined();
  });

  it('keeps a write whose answer was lost in the history a stale read serves', async () => {
    // Prepare
    const { client, clock } = faulted({ staleRate: 1 });
    // Act
    await withDynamoFaults({ ambiguous: { count: 1, level: 'call' } }, () =>
      client.send(put({ pk: 'p', sk: 'a', v: 1 })),
    ).catch(() => undefined);
    clock.ms += 100;
    const stale = await client.send(get('a'));
    // Assess
    expect(stale.Item).toBeUndefined();
  });
});

describe('reproducibility', () => {
  /** The same calls, each after a write of its key, with every fault at a middling rate. */
  async function run(seed: number): Promise<string[]> {
    const { client, clock, log } = faulted({ seed, staleRate: 0.5, conflictRate: 0.5, throttleRate: 0.1 });
    for (let i = 0; i < 10; i += 1) {
      await client.send(put({ pk: 'p', sk: `k${i}`, v: i }));
      clock.ms += 10;
      await client.send(get(`k${i}`));
      await client
        .send(
          new TransactWriteCommand({
            TransactItems: [{ Put: { TableName: TABLE, Item: { pk: 'q', sk: `k${i}` } } }],
          }),
        )
        .catch(() => undefined);
    }
    return log.events;
  }

  it('injects the same faults for the same seed, and others for another seed', async () => {
    // Act
    const first = await run(7);
    const again = await run(7);
    const other = await run(8);
    // Assess
    expect(first.length).toBeGreaterThan(0);
    expect(again).toEqual(first);
    expect(other).not.toEqual(first);
  });
});

describe('settings', () => {
  it('reads DYNAMODB_FAULTS=off, the overrides, and refuses a rate that is not one', () => {
    expect(dynamoFaultSettingsFromEnv({ DYNAMODB_FAULTS: 'off' })).toBeUndefined();
    expect(dynamoFaultSettingsFromEnv({})).toEqual(DEFAULT_DYNAMO_FAULTS);
    expect(
      dynamoFaultSettingsFromEnv({ DYNAMODB_FAULTS_SEED: '99', DYNAMODB_FAULTS_CONFLICT_RATE: '0.25' }),
    ).toEqual({ ...DEFAULT_DYNAMO_FAULTS, seed: 99, conflictRate: 0.25 });
    expect(() => dynamoFaultSettingsFromEnv({ DYNAMODB_FAULTS_THROTTLE_RATE: '5' })).toThrow(
      /DYNAMODB_FAULTS_THROTTLE_RATE=5/,
    );
    const extended = dynamoFaultSettingsFromEnv({
      DYNAMODB_FAULTS_PAST_RETRIES_RATE: '0.01',
      DYNAMODB_FAULTS_UNPROCESSED_RATE: '0.2',
      DYNAMODB_FAULTS_AMBIGUOUS_RATE: '0.05',
      DYNAMODB_FAULTS_SHARED_DIR: '/tmp/faults',
    });
    expect(extended).toEqual({
      ...DEFAULT_DYNAMO_FAULTS,
      pastRetriesRate: 0.01,
      unprocessedRate: 0.2,
      ambiguousRate: 0.05,
      sharedDir: '/tmp/faults',
    });
    expect(describeDynamoFaults(extended)).toContain(
      'DYNAMODB_FAULTS_PAST_RETRIES_RATE=0.01 DYNAMODB_FAULTS_UNPROCESSED_RATE=0.2 DYNAMODB_FAULTS_AMBIGUOUS_RATE=0.05 DYNAMODB_FAULTS_SHARED_DIR=/tmp/faults',
    );
    expect(DEFAULT_DYNAMO_FAULTS).toMatchObject({ pastRetriesRate: 0, unprocessedRate: 0, ambiguousRate: 0 });
  });
});
