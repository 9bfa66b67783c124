/**
 * The hot-path floors (issue 14): a bare `node:http` server that answers every request with one
 * GetItem of the bench listing through the AWS SDK's DynamoDBDocumentClient, the same client as the
 * service's, and the item as JSON. No routing, auth, rate limit, validation, ElectroDB or logging:
 * what one HTTP request plus one DynamoDB read costs on this machine, measured like the service
 * (own process, same autocannon settings).
 *
 * With BENCH_FLOOR_RATE_LIMIT=1 it is the equal-work floor: each request also sends the service's
 * rate-limit UpdateItem (the same expression on a window item of its own), started together with the
 * GetItem (Promise.all), as the service does on a GET. The DynamoDB work then equals the service's
 * (one read, one write per request), so what the service costs above this floor is its own code.
 *
 * Environment: BENCH_FLOOR_ENDPOINT, BENCH_FLOOR_TABLE, BENCH_FLOOR_KEY (the listing's key as JSON),
 * BENCH_FLOOR_RATE_LIMIT. The URL goes back on stdout as one JSON line.
 */
import { createServer } from 'node:http';
import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { tableDefinition } from '../../../functions/data/table.ts';
import { serveAsBenchChild } from '../child-cpu.ts';
import { benchDocumentClient } from '../sdk.ts';

const endpoint = process.env.BENCH_FLOOR_ENDPOINT ?? '';
const tableName = process.env.BENCH_FLOOR_TABLE ?? '';
const key = JSON.parse(process.env.BENCH_FLOOR_KEY ?? '{}') as Record<string, string>;
const withRateLimit = process.env.BENCH_FLOOR_RATE_LIMIT === '1';
const client = benchDocumentClient(endpoint);

const WINDOW_SECONDS = 60;
const FLOOR_KEY_ID = 'bench-floor-key';

/** The service's counter update (functions/data/rate-limits.ts countRequest), on the floor's own item. */
function countRequest() {
  const windowStart = Math.floor(Date.now() / 1000 / WINDOW_SECONDS) * WINDOW_SECONDS;
  return client.send(
    new UpdateCommand({
      TableName: tableName,
      Key: {
        [tableDefinition.partitionKey]: 'bench#floor-rate-limit',
        [tableDefinition.sortKey]: `window#${windowStart}`,
      },
      UpdateExpression:
        'ADD #tenantCount :one, #keyCount :one SET #ttl = if_not_exists(#ttl, :ttl), #tenantId = :tenantId, #windowStart = :windowStart, #e = :e, #v = :v',
      ExpressionAttributeNames: {
        '#tenantCount': 'tenantCount',
        '#keyCount': `key_${FLOOR_KEY_ID}`,
        '#ttl': 'ttl',
        '#tenantId': 'tenantId',
        '#windowStart': 'windowStart',
        '#e': '__edb_e__',
        '#v': '__edb_v__',
      },
      ExpressionAttributeValues: {
        ':one': 1,
        ':ttl': windowStart + WINDOW_SECONDS * 2,
        ':tenantId': 'bench-floor',
        ':windowStart': windowStart,
        ':e': 'benchFloorWindow',
        ':v': '1',
      },
      ReturnValues: 'UPDATED_NEW',
    }),
  );
}

async function read(): Promise<Record<string, unknown> | undefined> {
  const get = client.send(new GetCommand({ TableName: tableName, Key: key }));
  if (!withRateLimit) return (await get).Item;
  const [{ Item }] = await Promise.all([get, countRequest()]);
  return Item;
}

const server = createServer(async (_req, res) => {
  try {
    const Item = await read();
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
serveAsBenchChild(server);
