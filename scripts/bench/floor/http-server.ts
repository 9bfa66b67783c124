/**
 * The hot-path floor (issue 14): a bare `node:http` server that answers every request with one
 * GetItem of the bench listing through the AWS SDK's DynamoDBDocumentClient, the same client as the
 * service's, and the item as JSON. No routing, auth, rate limit, validation, ElectroDB or logging:
 * what one HTTP request plus one DynamoDB read costs on this machine, measured like the service
 * (own process, same autocannon settings). Environment: BENCH_FLOOR_ENDPOINT, BENCH_FLOOR_TABLE,
 * BENCH_FLOOR_KEY (the listing's key as JSON). The URL goes back on stdout as one JSON line.
 */
import { createServer } from 'node:http';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { answerCpuUsageRequests } from '../child-cpu.ts';
import { benchDocumentClient } from '../sdk.ts';

const endpoint = process.env.BENCH_FLOOR_ENDPOINT ?? '';
const tableName = process.env.BENCH_FLOOR_TABLE ?? '';
const key = JSON.parse(process.env.BENCH_FLOOR_KEY ?? '{}') as Record<string, string>;
const client = benchDocumentClient(endpoint);

const server = createServer(async (_req, res) => {
  try {
    const { Item } = await client.send(new GetCommand({ TableName: tableName, Key: key }));
    const body = JSON.stringify(Item ? Item : { detail: 'Not Found' });
    res.writeHead(Item ? 200 : 404, { 'Content-Type': 'application/json' });
    res.end(body);
  } catch (error) {
    console.error(error);
    res.writeHead(500, { 'Content-Type': 'application/json' });
    res.end('{"detail":"Internal error"}');
  }
});
server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  process.stdout.write(`${JSON.stringify({ url: `http://127.0.0.1:${port}` })}\n`);
});
answerCpuUsageRequests();

function stop(): void {
  server.closeAllConnections();
  server.close(() => process.exit(0));
  setTimeout(() => process.exit(0), 2000).unref();
}
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
// The IPC channel closes when the bench exits, however it exits: never outlive it.
process.on('disconnect', stop);
