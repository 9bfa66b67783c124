/**
 * The load section's floor: a bare `node:http` server answering every request with one GetItem of
 * the bench listing through the AWS SDK's DynamoDBDocumentClient, the service's own client, and the
 * item as JSON. No routing, auth, rate limit, validation, ElectroDB or logging: what one HTTP request
 * plus one DynamoDB read costs on this machine, run like the service (a process of its own, the same
 * autocannon settings). Input: the endpoint and the listing's key; answer: its URL.
 */
import { createServer } from 'node:http';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { benchClient } from '../bulk.ts';
import { answer, childInput } from '../child.ts';
import { BENCH_TABLE } from '../env.ts';

const { endpoint, key } = await childInput<{ endpoint: string; key: Record<string, string> }>();
const client = benchClient(endpoint);
const server = createServer(async (_req, res) => {
  try {
    const { Item } = await client.send(new GetCommand({ TableName: BENCH_TABLE, Key: key }));
    res.writeHead(Item ? 200 : 404, { 'Content-Type': 'application/json' }).end(JSON.stringify(Item ?? {}));
  } catch (error) {
    console.error(error);
    res.writeHead(500, { 'Content-Type': 'application/json' }).end('{"detail":"Internal error"}');
  }
});
server.listen(0, '127.0.0.1', () =>
  answer({ url: `http://127.0.0.1:${(server.address() as { port: number }).port}` }, false),
);
