import { type AttributeValue, DynamoDBClient, TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import {
  BatchGetCommand,
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
  dynamoFaultSettingsFromEnv,
  settleDynamoWrites,
} from '../support/dynamodb-faults.ts';

type Marshalled = Record<string, AttributeValue>;

/** The fields of a request body the fake reads. */
interface RequestBody {
  Key: Marshalled;
  Item: Marshalled;
  ExpressionAttributeValues: Record<string, AttributeValue>;
  RequestItems: Record<string, { Keys: Marshalled[] }>;
  TransactItems: { Put?: { Item: Marshalled } }[];
  ReturnValues?: string;
}

/**
 * A DynamoDB reduced to what these tests send, behind the SDK's real middleware stack (serialization,
 * retries, deserialization): the client's request handler answers from an in-memory table.
 */
function fakeDynamo() {
  const items = new Map<string, Marshalled>();
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
        if (operation === 'PutItem') items.set(key, body.Item);
        else items.delete(key);
        return body.ReturnValues === 'ALL_OLD' && old ? { Attributes: old } : {};
      }
      case 'Query': {
        const pk = body.ExpressionAttributeValues[':pk']?.S;
        const found = [...items.values()].filter((item) => item.pk?.S === pk);
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
        const body = JSON.stringify(answer(operation, JSON.parse(sent)));
        return {
          response: {
            statusCode: 200,
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
};

/** A fake DynamoDB with the faults on, and a clock the test moves. */
function faulted(settings: Partial<DynamoFaultSettings>) {
  const fake = fakeDynamo();
  const clock = { ms: 10_000 };
  const log = addDynamoFaults(
    fake.client,
    { ...NO_FAULTS, ...settings },
    { readCurrent: fake.readCurrent, now: () => clock.ms },
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
  });
});
