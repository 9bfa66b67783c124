import { randomUUID } from 'node:crypto';
import {
  GetCommand as SdkGetCommand,
  PutCommand as SdkPutCommand,
  QueryCommand as SdkQueryCommand,
} from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { dynamo, metered, tableName } from '../../functions/data/client.ts';
import {
  BatchGetCommand,
  BatchWriteCommand,
  DeleteCommand,
  type Doc,
  GetCommand,
  PutCommand,
  QueryCommand,
  ScanCommand,
  TransactGetCommand,
  TransactWriteCommand,
  UpdateCommand,
} from '../../functions/data/dynamodb/commands.ts';
import { type DocumentCall, DocumentClient } from '../../functions/data/dynamodb/document-client.ts';
import { localCredentials } from '../../functions/platform/aws/aws-http.ts';
import { config } from '../../functions/platform/config.ts';
import { rejection } from '../support/bedrock.ts';

/** A partition no other test (nor another run) writes to. */
const partition = () => `t#test-${randomUUID()}`;
const keyOf = (sk = 'doc') => ({ pk: partition(), sk });

/** Every kind of plain value the service stores. */
const sample = {
  title: 'Casa Blanca',
  empty: '',
  price: 950000,
  ratio: 0.25,
  negative: -3,
  active: true,
  archived: false,
  note: null,
  place: { code: 'ES-MA', tags: ['sea', 'golf'], nested: { depth: 2, none: null } },
  rooms: [{ kind: 'bedroom', size: 12.5 }, 'studio', 3, false, null, ['a', 'b']],
  amenities: new Set(['pool', 'garden']),
};

const put = (item: Doc) => dynamo().send(new PutCommand({ TableName: tableName(), Item: item }));
const get = async (key: Doc) =>
  (await dynamo().send(new GetCommand({ TableName: tableName(), Key: key, ConsistentRead: true }))).Item;

describe('DocumentClient single-item operations', () => {
  it('stores and reads back strings, numbers, booleans, null, nested maps and lists and a string Set', async () => {
    // Prepare
    const key = keyOf();
    // Act
    await put({ ...key, ...sample });
    const item = await get(key);
    // Assess
    expect(item).toEqual({ ...key, ...sample });
    expect(item?.amenities).toBeInstanceOf(Set);
  });

  it('leaves out undefined fields, top-level and nested, instead of refusing the item', async () => {
    // Prepare
    const key = keyOf();
    // Act
    await put({ ...key, title: 'Sparse', description: undefined, place: { code: 'ES', name: undefined } });
    const item = await get(key);
    // Assess
    expect(item).toEqual({ ...key, title: 'Sparse', place: { code: 'ES' } });
    expect(item && 'description' in item).toBe(false);
  });

  it('answers a Get of a missing key without an Item', async () => {
    // Prepare
    const key = keyOf();
    // Act
    const output = await dynamo().send(new GetCommand({ TableName: tableName(), Key: key }));
    // Assess
    expect(output.Item).toBeUndefined();
  });

  it('updates with plain expression values and returns the new item in plain values', async () => {
    // Prepare
    const key = keyOf();
    await put({ ...key, ...sample });
    // Act
    const output = await dynamo().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: key,
        UpdateExpression: 'SET #title = :title, #place.#code = :code, #note = :note ADD #amenities :more',
        ConditionExpression: '#price = :price',
        ExpressionAttributeNames: {
          '#title': 'title',
          '#place': 'place',
          '#code': 'code',
          '#note': 'note',
          '#amenities': 'amenities',
          '#price': 'price',
        },
        ExpressionAttributeValues: {
          ':title': 'Casa Azul',
          ':code': 'ES-CA',
          ':note': { kept: [1, 'two'] },
          ':more': new Set(['sauna']),
          ':price': 950000,
        },
        ReturnValues: 'ALL_NEW',
      }),
    );
    // Assess
    const expected = {
      ...key,
      ...sample,
      title: 'Casa Azul',
      note: { kept: [1, 'two'] },
      place: { ...sample.place, code: 'ES-CA' },
      amenities: new Set(['pool', 'garden', 'sauna']),
    };
    expect(output.Attributes).toEqual(expected);
    expect(await get(key)).toEqual(expected);
  });

  it('deletes an item and returns the old one in plain values', async () => {
    // Prepare
    const key = keyOf();
    await put({ ...key, ...sample });
    // Act
    const output = await dynamo().send(
      new DeleteCommand({ TableName: tableName(), Key: key, ReturnValues: 'ALL_OLD' }),
    );
    // Assess
    expect(output.Attributes).toEqual({ ...key, ...sample });
    expect(await get(key)).toBeUndefined();
  });
});

describe('DocumentClient pagination', () => {
  it('pages a Query with LastEvaluatedKey and ExclusiveStartKey in plain values', async () => {
    // Prepare
    const pk = partition();
    const sks = ['a', 'b', 'c', 'd', 'e'];
    for (const sk of sks) await put({ pk, sk, n: sks.indexOf(sk) });
    // Act
    const pages: Doc[][] = [];
    const lastKeys: (Doc | undefined)[] = [];
    let start: Doc | undefined;
    do {
      const output = await dynamo().send(
        new QueryCommand({
          TableName: tableName(),
          KeyConditionExpression: 'pk = :pk',
          ExpressionAttributeValues: { ':pk': pk },
          Limit: 2,
          ConsistentRead: true,
          ...(start ? { ExclusiveStartKey: start } : {}),
        }),
      );
      pages.push(output.Items ?? []);
      lastKeys.push(output.LastEvaluatedKey);
      start = output.LastEvaluatedKey;
    } while (start && pages.length < 10);
    // Assess
    expect(pages.map((items) => items.map((i) => i.sk))).toEqual([['a', 'b'], ['c', 'd'], ['e']]);
    expect(lastKeys).toEqual([{ pk, sk: 'b' }, { pk, sk: 'd' }, undefined]);
    expect(pages.flat().map((i) => i.n)).toEqual([0, 1, 2, 3, 4]);
  });

  it('pages a Query on a secondary index, whose LastEvaluatedKey carries the index keys', async () => {
    // Prepare
    const gsi1pk = partition();
    for (const n of [1, 2, 3]) await put({ ...keyOf(), gsi1pk, gsi1sk: `s${n}`, n });
    // Act
    const first = await dynamo().send(
      new QueryCommand({
        TableName: tableName(),
        IndexName: 'gsi1',
        KeyConditionExpression: 'gsi1pk = :g',
        ExpressionAttributeValues: { ':g': gsi1pk },
        Limit: 2,
      }),
    );
    const second = await dynamo().send(
      new QueryCommand({
        TableName: tableName(),
        IndexName: 'gsi1',
        KeyConditionExpression: 'gsi1pk = :g',
        ExpressionAttributeValues: { ':g': gsi1pk },
        Limit: 2,
        ExclusiveStartKey: first.LastEvaluatedKey,
      }),
    );
    // Assess
    expect(first.Items?.map((i) => i.n)).toEqual([1, 2]);
    expect(first.LastEvaluatedKey).toEqual({
      pk: first.Items?.[1]?.pk,
      sk: 'doc',
      gsi1pk,
      gsi1sk: 's2',
    });
    expect(second.Items?.map((i) => i.n)).toEqual([3]);
    expect(second.LastEvaluatedKey).toBeUndefined();
  });

  it('pages a Scan: the next page starts after the plain LastEvaluatedKey of the previous one', async () => {
    // Prepare
    for (const sk of ['a', 'b']) await put({ pk: partition(), sk });
    // Act
    const first = await dynamo().send(new ScanCommand({ TableName: tableName(), Limit: 1 }));
    const second = await dynamo().send(
      new ScanCommand({ TableName: tableName(), Limit: 1, ExclusiveStartKey: first.LastEvaluatedKey }),
    );
    // Assess
    const [firstItem] = first.Items ?? [];
    const [secondItem] = second.Items ?? [];
    expect(first.Items).toHaveLength(1);
    expect(first.LastEvaluatedKey).toEqual({ pk: firstItem?.pk, sk: firstItem?.sk });
    expect(typeof first.LastEvaluatedKey?.pk).toBe('string');
    expect(second.Items).toHaveLength(1);
    expect({ pk: secondItem?.pk, sk: secondItem?.sk }).not.toEqual(first.LastEvaluatedKey);
    expect(second.LastEvaluatedKey).toEqual({ pk: secondItem?.pk, sk: secondItem?.sk });
  });
});

describe('DocumentClient batches and transactions', () => {
  it('writes puts and deletes in one BatchWrite, then reads several keys with one BatchGet', async () => {
    // Prepare
    const pk = partition();
    await put({ pk, sk: 'old', title: 'Gone soon' });
    const items = [
      { pk, sk: '1', ...sample },
      { pk, sk: '2', title: 'Second', amenities: new Set(['lift']) },
      { pk, sk: '3', title: 'Third', dropped: undefined },
    ];
    // Act
    const written = await dynamo().send(
      new BatchWriteCommand({
        RequestItems: {
          [tableName()]: [
            ...items.map((Item) => ({ PutRequest: { Item } })),
            { DeleteRequest: { Key: { pk, sk: 'old' } } },
          ],
        },
      }),
    );
    const read = await dynamo().send(
      new BatchGetCommand({
        RequestItems: {
          [tableName()]: { Keys: ['1', '2', '3', 'old'].map((sk) => ({ pk, sk })), ConsistentRead: true },
        },
      }),
    );
    // Assess
    expect(written.UnprocessedItems ?? {}).toEqual({});
    expect(read.UnprocessedKeys ?? {}).toEqual({});
    const found = [...(read.Responses?.[tableName()] ?? [])].sort((a, b) =>
      String(a.sk).localeCompare(String(b.sk)),
    );
    expect(found).toEqual([
      { pk, sk: '1', ...sample },
      { pk, sk: '2', title: 'Second', amenities: new Set(['lift']) },
      { pk, sk: '3', title: 'Third' },
    ]);
  });

  it('applies a TransactWrite of a Put, an Update and a Delete, then reads them with TransactGet in order', async () => {
    // Prepare
    const pk = partition();
    await put({ pk, sk: 'counter', count: 1 });
    await put({ pk, sk: 'stale', title: 'Stale' });
    // Act
    await dynamo().send(
      new TransactWriteCommand({
        TransactItems: [
          { Put: { TableName: tableName(), Item: { pk, sk: 'new', ...sample } } },
          {
            Update: {
              TableName: tableName(),
              Key: { pk, sk: 'counter' },
              UpdateExpression: 'SET #count = #count + :one',
              ConditionExpression: '#count = :one',
              ExpressionAttributeNames: { '#count': 'count' },
              ExpressionAttributeValues: { ':one': 1 },
            },
          },
          { Delete: { TableName: tableName(), Key: { pk, sk: 'stale' } } },
        ],
      }),
    );
    const read = await dynamo().send(
      new TransactGetCommand({
        TransactItems: ['counter', 'new', 'stale'].map((sk) => ({
          Get: { TableName: tableName(), Key: { pk, sk } },
        })),
      }),
    );
    // Assess
    expect(read.Responses).toEqual([
      { Item: { pk, sk: 'counter', count: 2 } },
      { Item: { pk, sk: 'new', ...sample } },
      {},
    ]);
  });
});

describe('DocumentClient errors', () => {
  it('rejects a failed condition with ConditionalCheckFailedException and status 400', async () => {
    // Prepare
    const key = keyOf();
    await put({ ...key, title: 'First' });
    // Act
    const error = await rejection(
      dynamo().send(
        new PutCommand({
          TableName: tableName(),
          Item: { ...key, title: 'Second' },
          ConditionExpression: 'attribute_not_exists(pk)',
        }),
      ),
    );
    // Assess
    expect(error).toBeInstanceOf(Error);
    expect(error).toMatchObject({
      name: 'ConditionalCheckFailedException',
      $metadata: { httpStatusCode: 400, attempts: 1 },
    });
    expect(await get(key)).toEqual({ ...key, title: 'First' });
  });

  it('carries the current item, marshalled, when ReturnValuesOnConditionCheckFailure is ALL_OLD', async () => {
    // Prepare
    const key = keyOf();
    await put({ ...key, title: 'First', price: 100 });
    // Act
    const error = await rejection(
      dynamo().send(
        new PutCommand({
          TableName: tableName(),
          Item: { ...key, title: 'Second' },
          ConditionExpression: 'attribute_not_exists(pk)',
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        }),
      ),
    );
    // Assess
    expect(error).toMatchObject({ name: 'ConditionalCheckFailedException' });
    expect((error as { Item?: unknown }).Item).toEqual({
      pk: { S: key.pk },
      sk: { S: key.sk },
      title: { S: 'First' },
      price: { N: '100' },
    });
  });

  it('rejects a cancelled transaction with TransactionCanceledException and one reason per item', async () => {
    // Prepare
    const pk = partition();
    await put({ pk, sk: 'taken', title: 'Taken' });
    // Act
    const error = await rejection(
      dynamo().send(
        new TransactWriteCommand({
          TransactItems: [
            {
              Put: {
                TableName: tableName(),
                Item: { pk, sk: 'taken', title: 'Mine' },
                ConditionExpression: 'attribute_not_exists(pk)',
              },
            },
            { Put: { TableName: tableName(), Item: { pk, sk: 'free', title: 'Free' } } },
          ],
        }),
      ),
    );
    // Assess
    expect(error).toMatchObject({
      name: 'TransactionCanceledException',
      $metadata: { httpStatusCode: 400 },
    });
    const reasons = (error as { CancellationReasons?: { Code?: string }[] }).CancellationReasons;
    expect(reasons?.map((r) => r.Code)).toEqual(['ConditionalCheckFailed', 'None']);
    expect(await get({ pk, sk: 'free' })).toBeUndefined();
  });
});

describe('DocumentClient middleware', () => {
  /** A client of its own, so that middleware added here never reaches the shared one. */
  const ownClient = () =>
    new DocumentClient({
      region: config().AWS_REGION,
      endpoint: config().DYNAMODB_ENDPOINT ?? '',
      credentials: localCredentials,
    });

  it('sees the operation and the plain input of each call, and the plain output', async () => {
    // Prepare
    const client = ownClient();
    const key = keyOf();
    const seen: { call: DocumentCall; output: Record<string, unknown> }[] = [];
    client.use(async (call, next) => {
      const output = await next(call);
      seen.push({ call, output });
      return output;
    });
    // Act
    await client.send(new PutCommand({ TableName: tableName(), Item: { ...key, tags: new Set(['x']) } }));
    await client.send(new GetCommand({ TableName: tableName(), Key: key, ConsistentRead: true }));
    // Assess
    expect(seen.map((s) => s.call)).toEqual([
      { operation: 'PutItem', input: { TableName: tableName(), Item: { ...key, tags: new Set(['x']) } } },
      { operation: 'GetItem', input: { TableName: tableName(), Key: key, ConsistentRead: true } },
    ]);
    expect(seen[1]?.output.Item).toEqual({ ...key, tags: new Set(['x']) });
  });

  it('runs middleware in the order added, and what one passes on is what the next sees', async () => {
    // Prepare
    const client = ownClient();
    const order: string[] = [];
    let innerInput: Record<string, unknown> | undefined;
    client.use(async (call, next) => {
      order.push('outer');
      return next({ ...call, input: { ...call.input, ReturnConsumedCapacity: 'TOTAL' } });
    });
    client.use(async (call, next) => {
      order.push('inner');
      innerInput = call.input;
      return next(call);
    });
    // Act
    const output = await client.send(new GetCommand({ TableName: tableName(), Key: keyOf() }));
    // Assess
    expect(order).toEqual(['outer', 'inner']);
    expect(innerInput?.ReturnConsumedCapacity).toBe('TOTAL');
    expect(output.ConsumedCapacity).toMatchObject({ TableName: tableName() });
  });

  it('meters round trips, operations and consumed read and write units inside metered()', async () => {
    // Prepare
    const key = keyOf();
    // Act
    const { result, meter } = await metered(async () => {
      await put({ ...key, title: 'Metered' });
      const item = await get(key);
      await dynamo().send(
        new QueryCommand({
          TableName: tableName(),
          KeyConditionExpression: 'pk = :pk',
          ExpressionAttributeValues: { ':pk': key.pk },
        }),
      );
      return item;
    });
    // Assess
    expect(result).toEqual({ ...key, title: 'Metered' });
    expect(meter.roundTrips).toBe(3);
    expect(meter.operations).toEqual(['PutItem', 'GetItem', 'Query']);
    // One small item: 1 WCU to write, 1 RCU to read consistently, 0.5 RCU to query eventually consistently.
    expect(meter.writeUnits).toBe(1);
    expect(meter.readUnits).toBe(1.5);
  });

  it('does not ask for consumed capacity outside metered()', async () => {
    // Prepare
    const key = keyOf();
    // Act
    const output = await dynamo().send(new GetCommand({ TableName: tableName(), Key: key }));
    // Assess
    expect(output.ConsumedCapacity).toBeUndefined();
  });
});

describe('DocumentClient with @aws-sdk/lib-dynamodb commands', () => {
  it('runs the SDK PutCommand and GetCommand instances ElectroDB builds outside bundles', async () => {
    // Prepare
    const key = keyOf();
    // Act
    await dynamo().send(new SdkPutCommand({ TableName: tableName(), Item: { ...key, ...sample } }));
    const output = await dynamo().send(
      new SdkGetCommand({ TableName: tableName(), Key: key, ConsistentRead: true }),
    );
    // Assess
    expect(output.Item).toEqual({ ...key, ...sample });
  });

  it('runs an SDK QueryCommand with plain expression values', async () => {
    // Prepare
    const key = keyOf();
    await put({ ...key, title: 'Queried' });
    // Act
    const output = await dynamo().send(
      new SdkQueryCommand({
        TableName: tableName(),
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': key.pk },
      }),
    );
    // Assess
    expect(output.Items).toEqual([{ ...key, title: 'Queried' }]);
  });
});
