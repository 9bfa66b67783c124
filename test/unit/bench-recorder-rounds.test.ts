import { createServer, type Server } from 'node:http';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  QueryCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type DynamoRecorder,
  roundsAfter,
  startDynamoRecorder,
} from '../../scripts/bench/dynamo-recorder.ts';

/**
 * DynamoDB's part played by a loopback server: every call answered `{}` once its body is read (the
 * request bodies kept), and a PutItem refused as a failed condition.
 */
let upstream: Server;
let client: DynamoDBDocumentClient;
let recorder: DynamoRecorder;
const bodies: Record<string, unknown>[] = [];

beforeAll(async () => {
  upstream = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => {
      body += chunk.toString();
    });
    req.on('end', () => {
      bodies.push(JSON.parse(body) as Record<string, unknown>);
      const refused = String(req.headers['x-amz-target']).endsWith('.PutItem');
      const answer = refused
        ? { __type: 'com.amazonaws.dynamodb.v20120810#ConditionalCheckFailedException' }
        : {};
      res
        .writeHead(refused ? 400 : 200, { 'content-type': 'application/x-amz-json-1.0' })
        .end(JSON.stringify(answer));
    });
  });
  await new Promise<void>((done) => upstream.listen(0, '127.0.0.1', done));
  const { port } = upstream.address() as { port: number };
  const credentials = { accessKeyId: 'local', secretAccessKey: 'local' };
  const base = new DynamoDBClient({ endpoint: `http://127.0.0.1:${port}`, region: 'us-east-1', credentials });
  client = DynamoDBDocumentClient.from(base);
  recorder = startDynamoRecorder(client);
});

afterAll(async () => {
  client.destroy();
  await new Promise((done) => upstream.close(done));
});

const Key = { pk: 'a', sk: 'b' };
const TableName = 't';

describe('the bench recorder on a DynamoDB client', () => {
  it('numbers each call by the round it went out in, and counts the rounds after a marked one', async () => {
    // Act: a lookup, then two writes together, then two reads one after the other
    const { recording } = await recorder.record(async () => {
      await client.send(new GetCommand({ TableName, Key }));
      const write = () =>
        client.send(
          new UpdateCommand({
            TableName,
            Key,
            UpdateExpression: 'SET marker = :one',
            ExpressionAttributeValues: { ':one': 1 },
          }),
        );
      await Promise.all([write(), write()]);
      await client.send(
        new QueryCommand({
          TableName,
          KeyConditionExpression: 'pk = :a',
          ExpressionAttributeValues: { ':a': 'a' },
        }),
      );
      await client.send(
        new QueryCommand({
          TableName,
          KeyConditionExpression: 'pk = :a',
          ExpressionAttributeValues: { ':a': 'a' },
        }),
      );
    });

    // Assess
    expect(recording.rounds).toBe(4);
    expect(recording.calls.map((c) => [c.operation, c.round])).toEqual([
      ['GetItem', 1],
      ['UpdateItem', 2],
      ['UpdateItem', 2],
      ['Query', 3],
      ['Query', 4],
    ]);
    expect(roundsAfter(recording, (c) => c.operation === 'UpdateItem')).toBe(2);
    expect(roundsAfter(recording, () => false)).toBe(4);
  });

  it('asks for consumed capacity only while recording, and notes a refused write with its error', async () => {
    // Act
    bodies.length = 0;
    await client.send(new GetCommand({ TableName, Key }));
    const { recording } = await recorder.record(async () => {
      await client
        .send(new PutCommand({ TableName, Item: Key, ConditionExpression: 'attribute_not_exists(pk)' }))
        .catch(() => undefined);
    });

    // Assess
    expect(bodies.map((b) => b.ReturnConsumedCapacity)).toEqual([undefined, 'TOTAL']);
    expect(recording.calls).toEqual([
      expect.objectContaining({
        operation: 'PutItem',
        status: 400,
        output: { __type: 'ConditionalCheckFailedException' },
      }),
    ]);
  });
});
