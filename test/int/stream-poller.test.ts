/**
 * The local stand-in of the stream consumer's event source mapping (scripts/local/stream-poller.ts),
 * alone: each behaviour of Lambda's DynamoDB event source the local stack relies on, on a table of
 * its own on DynamoDB Local so that no other test's records mix in. The last part runs the real
 * consumer behind it on a poison record.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DescribeTableCommand, DynamoDBClient, PutItemCommand, QueryCommand } from '@aws-sdk/client-dynamodb';
import {
  DescribeStreamCommand,
  DynamoDBStreamsClient,
  GetRecordsCommand,
  GetShardIteratorCommand,
  type _Record as StreamRecord,
} from '@aws-sdk/client-dynamodb-streams';
import type { DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, beforeAll, describe, expect, inject, it, onTestFinished, vi } from 'vitest';
import { handler as streamConsumer } from '../../functions/streams/consumer.ts';
import { ensureTable, localClient } from '../../scripts/local/dynamo-local.ts';
import {
  PARKED_PARTITION,
  type ParkedRecord,
  type StreamMapping,
  startStreamPoller,
} from '../../scripts/local/stream-poller.ts';
import { createTestTenant, type TestTenant, unique } from '../support/factories.ts';
import { startTestApi, type TestApi } from '../support/http.ts';

const endpoint = inject('dynamoEndpoint');
const dynamo = localClient(endpoint);
const WAIT = { timeout: 30_000, interval: 50 };

type Handler = (event: DynamoDBStreamEvent) => Promise<{ batchItemFailures: { itemIdentifier: string }[] }>;

/** A table of the test's own, with its stream. */
async function ownTable(): Promise<string> {
  const name = unique('poller');
  await ensureTable(endpoint, name);
  return name;
}

async function put(table: string, id: string): Promise<void> {
  await dynamo.send(new PutItemCommand({ TableName: table, Item: { pk: { S: id }, sk: { S: 'x' } } }));
}

const idOf = (record: DynamoDBRecord | StreamRecord) => record.dynamodb?.Keys?.pk?.S ?? '';
const seqOf = (record: DynamoDBRecord) => record.dynamodb?.SequenceNumber ?? '';

/** A poller on `table` from the start of its stream, recording each invocation's record ids. */
function pollerOn(
  table: string,
  handler: Handler,
  options: { mapping?: Partial<StreamMapping>; checkpointFile?: string; now?: () => number } = {},
) {
  const invocations: string[][] = [];
  const parked: ParkedRecord[] = [];
  const poller = startStreamPoller({
    endpoint,
    tableName: table,
    intervalMs: 50,
    initialPosition: 'TRIM_HORIZON',
    ...options,
    handler: (event) => {
      invocations.push(event.Records.map(idOf));
      return handler(event);
    },
    onParked: (record) => parked.push(record),
  });
  return { ...poller, invocations, parked, delivered: () => invocations.flat() };
}

const succeed: Handler = async () => ({ batchItemFailures: [] });

async function parkedItems(table: string) {
  const { Items = [] } = await dynamo.send(
    new QueryCommand({
      TableName: table,
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': { S: PARKED_PARTITION } },
    }),
  );
  return Items;
}

describe('the local stream event source: checkpoints per shard, durably', () => {
  it('resumes after a restart where it was, and redelivers the batch a crash interrupted', async () => {
    // Prepare
    const table = await ownTable();
    const checkpointFile = join(mkdtempSync(join(tmpdir(), 'lls-checkpoints-')), 'stream.json');
    await put(table, 'a1');
    await put(table, 'a2');
    const first = pollerOn(table, succeed, { checkpointFile });
    await vi.waitFor(() => expect(first.delivered()).toEqual(['a1', 'a2']), WAIT);
    await first.stop();
    // Act: a change while nothing polls, then a restart; then a crash in the middle of a batch
    await put(table, 'b1');
    let hang = true;
    const second = pollerOn(
      table,
      (event) =>
        hang && event.Records.some((r) => idOf(r) === 'c1') ? new Promise(() => undefined) : succeed(event),
      { checkpointFile },
    );
    await vi.waitFor(() => expect(second.delivered()).toEqual(['b1']), WAIT);
    await put(table, 'c1');
    await vi.waitFor(() => expect(second.delivered()).toContain('c1'), WAIT);
    void second.stop(); // the process dies with c1 in hand
    hang = false;
    const third = pollerOn(table, succeed, { checkpointFile });
    // Assess: nothing delivered twice across the restart, the interrupted batch delivered again
    await vi.waitFor(() => expect(third.delivered()).toEqual(['c1']), WAIT);
    await third.stop();
  });
});

describe('the local stream event source: the mapping settings of the worker table', () => {
  it('hands over at most batchSize records per invocation', async () => {
    // Prepare
    const table = await ownTable();
    for (let i = 0; i < 7; i++) await put(table, `r${i}`);
    // Act
    const poller = pollerOn(table, succeed, { mapping: { batchSize: 3 } });
    // Assess
    await vi.waitFor(() => expect(poller.delivered()).toHaveLength(7), WAIT);
    await poller.stop();
    expect(poller.invocations.map((batch) => batch.length)).toEqual([3, 3, 1]);
  });

  it('checkpoints before the lowest reported failure and retries from it, with every record after it', async () => {
    // Prepare
    const table = await ownTable();
    for (let i = 0; i < 5; i++) await put(table, `r${i}`);
    let failOnce = true;
    // Act: r2 and r3 fail once (reported highest first: the lowest is the checkpoint)
    const poller = pollerOn(table, async (event) => {
      if (!failOnce) return { batchItemFailures: [] };
      failOnce = false;
      const failed = event.Records.filter((r) => ['r3', 'r2'].includes(idOf(r))).reverse();
      return { batchItemFailures: failed.map((r) => ({ itemIdentifier: seqOf(r) })) };
    });
    // Assess
    await vi.waitFor(() => expect(poller.invocations).toHaveLength(2), WAIT);
    await poller.stop();
    expect(poller.invocations).toEqual([
      ['r0', 'r1', 'r2', 'r3', 'r4'],
      ['r2', 'r3', 'r4'],
    ]);
  });

  it('splits a failing batch in two (bisect), and discards only the record that fails every retry to the on-failure destination', async () => {
    // Prepare
    const table = await ownTable();
    for (let i = 0; i < 8; i++) await put(table, `r${i}`);
    // Act: every invocation that holds r5 fails
    const poller = pollerOn(table, async (event) => {
      if (event.Records.some((r) => idOf(r) === 'r5')) throw new Error('poison');
      return { batchItemFailures: [] };
    });
    // Assess
    await vi.waitFor(() => expect(poller.invocations.at(-1)).toEqual(['r6', 'r7']), WAIT);
    await poller.stop();
    expect(poller.invocations.slice(0, 5)).toEqual([
      ['r0', 'r1', 'r2', 'r3', 'r4', 'r5', 'r6', 'r7'],
      ['r0', 'r1', 'r2', 'r3'],
      ['r4', 'r5', 'r6', 'r7'],
      ['r4', 'r5'],
      ['r4'],
    ]);
    // r5 alone until its retries ran out (10, the worker table's), then r6 and r7 flow
    expect(
      poller.invocations.filter((batch) => batch.length === 1 && batch[0] === 'r5').length,
    ).toBeGreaterThan(0);
    expect(
      poller.parked.map((p) => [idOf({ dynamodb: { Keys: p.keys } } as DynamoDBRecord), p.reason]),
    ).toEqual([['r5', 'RetryAttemptsExhausted']]);
    expect(poller.parked[0]?.attempts).toBe(11);
    const [stored] = await parkedItems(table);
    expect(stored?.condition?.S).toBe('RetryAttemptsExhausted');
    expect(stored?.batchSize?.N).toBe('1');
    expect(JSON.parse(stored?.record?.S ?? '{}').dynamodb.Keys.pk.S).toBe('r5');
  });

  it('retries a failing batch retryAttempts times, then discards the whole batch (no bisect)', async () => {
    // Prepare
    const table = await ownTable();
    for (let i = 0; i < 3; i++) await put(table, `r${i}`);
    await put(table, 'after');
    // Act
    const poller = pollerOn(
      table,
      async (event) => {
        if (event.Records.some((r) => idOf(r) === 'r1')) throw new Error('poison');
        return { batchItemFailures: [] };
      },
      { mapping: { bisectBatchOnError: false, retryAttempts: 2, batchSize: 3 } },
    );
    // Assess
    await vi.waitFor(() => expect(poller.delivered()).toContain('after'), WAIT);
    await poller.stop();
    expect(poller.invocations).toEqual([
      ['r0', 'r1', 'r2'],
      ['r0', 'r1', 'r2'],
      ['r0', 'r1', 'r2'],
      ['after'],
    ]);
    expect(poller.parked.map((p) => p.sequenceNumber)).toHaveLength(3);
  });

  it('discards records older than the maximum record age without delivering them', async () => {
    // Prepare
    const table = await ownTable();
    await put(table, 'old1');
    await put(table, 'old2');
    // Act: the clock says the records are 7 hours old (the worker table's maximum: 6 h)
    const poller = pollerOn(table, succeed, { now: () => Date.now() + 7 * 3600_000 });
    // Assess
    await vi.waitFor(() => expect(poller.parked).toHaveLength(2), WAIT);
    await poller.stop();
    expect(poller.invocations).toEqual([]);
    expect(poller.parked.map((p) => p.reason)).toEqual(['RecordAgeExceeded', 'RecordAgeExceeded']);
  });

  it('counts an invocation that outlives the function timeout as failed, and delivers the batch again', async () => {
    // Prepare
    const table = await ownTable();
    await put(table, 'slow');
    let calls = 0;
    // Act: the first invocation never ends
    const poller = pollerOn(
      table,
      (event) => (++calls === 1 ? new Promise(() => undefined) : succeed(event)),
      { mapping: { timeoutSeconds: 0.2 } },
    );
    // Assess
    await vi.waitFor(() => expect(poller.invocations).toEqual([['slow'], ['slow']]), WAIT);
    await poller.stop();
    expect(poller.parked).toEqual([]);
  });
});

describe('the local stream event source: new shards', () => {
  it('reads a child shard from its start once its parent is read to its end, after a restart too', async () => {
    // Prepare: the parent shard was checkpointed before the restart; it then closed, and a child opened.
    // Mocked (at the SDK edge) for this test only: DynamoDB Local cannot be made to split a shard.
    const streams = mockClient(DynamoDBStreamsClient);
    const tables = mockClient(DynamoDBClient);
    onTestFinished(() => {
      streams.restore();
      tables.restore();
    });
    const checkpointFile = join(mkdtempSync(join(tmpdir(), 'lls-checkpoints-')), 'stream.json');
    writeFileSync(checkpointFile, JSON.stringify({ parent: { sequenceNumber: '100' } }));
    const record = (sequenceNumber: string): StreamRecord => ({
      eventID: `e${sequenceNumber}`,
      eventName: 'INSERT',
      dynamodb: { SequenceNumber: sequenceNumber, Keys: { pk: { S: `k${sequenceNumber}` } } },
    });
    tables.on(DescribeTableCommand).resolves({ Table: { LatestStreamArn: 'arn:stream' } });
    streams.on(DescribeStreamCommand).resolves({
      StreamDescription: {
        Shards: [{ ShardId: 'parent' }, { ShardId: 'child', ParentShardId: 'parent' }],
      },
    });
    streams.on(GetShardIteratorCommand).callsFake((input) => ({ ShardIterator: `${input.ShardId}-0` }));
    streams
      .on(GetRecordsCommand, { ShardIterator: 'parent-0' })
      .resolves({ Records: [record('101')], NextShardIterator: undefined });
    streams
      .on(GetRecordsCommand, { ShardIterator: 'child-0' })
      .resolvesOnce({ Records: [record('200')], NextShardIterator: 'child-1' })
      .resolves({ Records: [], NextShardIterator: 'child-1' });
    streams
      .on(GetRecordsCommand, { ShardIterator: 'child-1' })
      .resolves({ Records: [], NextShardIterator: 'child-1' });
    const delivered: string[] = [];
    // Act
    const poller = startStreamPoller({
      endpoint: 'http://127.0.0.1:9',
      tableName: 'mocked',
      intervalMs: 20,
      checkpointFile,
      initialPosition: 'LATEST',
      handler: async (event) => {
        delivered.push(...event.Records.map(seqOf));
        return { batchItemFailures: [] };
      },
    });
    await vi.waitFor(() => expect(delivered).toEqual(['101', '200']), WAIT);
    await poller.stop();
    // Assess: the parent resumed after its checkpoint, the child (not in the file) from its start
    const opened = streams.commandCalls(GetShardIteratorCommand).map((c) => c.args[0].input);
    expect(opened).toEqual([
      expect.objectContaining({
        ShardId: 'parent',
        ShardIteratorType: 'AFTER_SEQUENCE_NUMBER',
        SequenceNumber: '100',
      }),
      expect.objectContaining({ ShardId: 'child', ShardIteratorType: 'TRIM_HORIZON' }),
    ]);
  });
});

describe('the local stream event source: idle cost', () => {
  it('describes the stream once while idle, and again as soon as a shard ends, finding its child', async () => {
    // Prepare: the parent shard reads empty a few times, then closes; its child appears as it closes.
    // Mocked (at the SDK edge): DynamoDB Local cannot be made to split a shard.
    const streams = mockClient(DynamoDBStreamsClient);
    const tables = mockClient(DynamoDBClient);
    onTestFinished(() => {
      streams.restore();
      tables.restore();
    });
    const record = (sequenceNumber: string): StreamRecord => ({
      eventID: `e${sequenceNumber}`,
      eventName: 'INSERT',
      dynamodb: { SequenceNumber: sequenceNumber, Keys: { pk: { S: `k${sequenceNumber}` } } },
    });
    const IDLE_READS = 8;
    let parentReads = 0;
    tables.on(DescribeTableCommand).resolves({ Table: { LatestStreamArn: 'arn:stream' } });
    streams
      .on(DescribeStreamCommand)
      .resolvesOnce({ StreamDescription: { Shards: [{ ShardId: 'parent' }] } })
      .resolves({
        StreamDescription: { Shards: [{ ShardId: 'parent' }, { ShardId: 'child', ParentShardId: 'parent' }] },
      });
    streams.on(GetShardIteratorCommand).callsFake((input) => ({ ShardIterator: `${input.ShardId}-0` }));
    streams.on(GetRecordsCommand, { ShardIterator: 'parent-0' }).resolves({
      Records: [record('101')],
      NextShardIterator: 'parent-1',
    });
    streams.on(GetRecordsCommand, { ShardIterator: 'parent-1' }).callsFake(() => {
      parentReads += 1;
      return { Records: [], NextShardIterator: parentReads < IDLE_READS ? 'parent-1' : undefined };
    });
    streams
      .on(GetRecordsCommand, { ShardIterator: 'child-0' })
      .resolves({ Records: [record('200')], NextShardIterator: 'child-1' });
    streams
      .on(GetRecordsCommand, { ShardIterator: 'child-1' })
      .resolves({ Records: [], NextShardIterator: 'child-1' });
    const delivered: string[] = [];
    // Act
    const poller = startStreamPoller({
      endpoint: 'http://127.0.0.1:9',
      tableName: 'mocked',
      intervalMs: 20,
      // Longer than the test: every description it sees is the first one or follows the parent's end.
      rediscoverMs: 600_000,
      initialPosition: 'TRIM_HORIZON',
      handler: async (event) => {
        delivered.push(...event.Records.map(seqOf));
        return { batchItemFailures: [] };
      },
    });
    await vi.waitFor(() => expect(delivered).toEqual(['101', '200']), WAIT);
    await poller.stop();
    // Assess: IDLE_READS polls of the parent, and the stream described at the start and once after it ended
    expect(parentReads).toBe(IDLE_READS);
    expect(streams.commandCalls(DescribeStreamCommand)).toHaveLength(2);
    expect(tables.commandCalls(DescribeTableCommand)).toHaveLength(2);
  });
});

describe('a poison record on the faithful event source', () => {
  let tenant: TestTenant;
  let api: TestApi;
  beforeAll(async () => {
    tenant = await createTestTenant();
    api = await startTestApi(tenant.key);
  });
  afterAll(async () => {
    await api.close();
  });

  it('a poison record among 100 records: the other 99 are processed, only it is discarded', async () => {
    // Prepare: the real consumer behind the poller with the worker table's settings, for this Tenant's
    // records only (the table is shared with other test files)
    const mine = (r: DynamoDBRecord) => (r.dynamodb?.Keys?.pk?.S ?? '').startsWith(`t#${tenant.tenantId}#`);
    let release: () => void = () => undefined;
    const written = new Promise<void>((resolve) => {
      release = resolve;
    });
    const parked: ParkedRecord[] = [];
    const poller = startStreamPoller({
      endpoint,
      tableName: inject('tableName'),
      intervalMs: 50,
      initialPosition: 'LATEST',
      // The first batch waits until all 100 are written, so that they come in batches of many.
      handler: async (event) => {
        const records = event.Records.filter(mine);
        if (records.length) await written;
        return streamConsumer({ Records: records });
      },
      onParked: (record) => {
        if ((record.keys as { pk?: { S?: string } })?.pk?.S?.startsWith(`t#${tenant.tenantId}#`))
          parked.push(record);
      },
    });
    await poller.ready;
    const names: string[] = [];
    const create = async (name: string) => {
      const res = await api.call('POST', '/v1/leads', { body: { name, email: null } });
      expect(res.status, res.text).toBe(201);
      names.push(name);
    };
    for (let i = 0; i < 50; i++) await create(`Before ${i}`);
    // An item the consumer cannot decode (a fractional number beyond what a JavaScript number holds).
    const poisonKey = `t#${tenant.tenantId}#lead#${unique('poison')}`;
    await dynamo.send(
      new PutItemCommand({
        TableName: inject('tableName'),
        Item: {
          pk: { S: poisonKey },
          sk: { S: 'lead' },
          __edb_e__: { S: 'lead' },
          __edb_v__: { S: '1' },
          score: { N: '9007199254740993.5' },
        },
      }),
    );
    for (let i = 0; i < 49; i++) await create(`After ${i}`);
    // Act
    release();
    // Assess: a lead.created event for each of the 99, the poison alone on the on-failure destination
    const created = async () => {
      const events: { data: { name: string } }[] = [];
      let cursor: string | null = null;
      do {
        const res = await api.call(
          'GET',
          `/v1/events?type=lead.created&limit=200${cursor ? `&cursor=${cursor}` : ''}`,
        );
        events.push(...res.body.data);
        cursor = res.body.next_cursor;
      } while (cursor);
      return events.map((e) => e.data.name);
    };
    await vi.waitFor(async () => expect(await created()).toHaveLength(99), {
      timeout: 120_000,
      interval: 500,
    });
    await vi.waitFor(() => expect(parked).toHaveLength(1), { timeout: 60_000, interval: 100 });
    await poller.stop();
    expect(new Set(await created())).toEqual(new Set(names));
    expect(parked[0]).toMatchObject({ reason: 'RetryAttemptsExhausted', keys: { pk: { S: poisonKey } } });
  }, 240_000);
});
