/**
 * The load section's floor: a bare `node:http` server, each request one GetItem of the bench listing
 * through the service's own SDK client and nothing else: what an HTTP request and a read cost here.
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
