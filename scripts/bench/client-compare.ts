/**
 * `npm run bench:client`: the service's DocumentClient (functions/data/dynamodb) against the AWS
 * SDK's DynamoDBDocumentClient it replaced, on the same DynamoDB Local, same item, same concurrency.
 * Rounds alternate between the two so that a burst of load on the shared cores hits both alike;
 * the medians of the rounds are printed. Evidence for the decision in README "Architecture".
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  DynamoDBDocumentClient,
  GetCommand as SdkGetCommand,
  PutCommand as SdkPutCommand,
} from '@aws-sdk/lib-dynamodb';
import { GetCommand } from '../../functions/data/dynamodb/commands.ts';
import { DocumentClient } from '../../functions/data/dynamodb/document-client.ts';
import { localCredentials } from '../../functions/platform/aws/aws-http.ts';
import { ensureTable, startDynamoLocal } from '../local/dynamo-local.ts';
import { median, round } from './stats.ts';

const TABLE = 'client-compare';
const CONNECTIONS = 8;
const ROUNDS = 5;
const ROUND_MS = 3000;

async function loop(get: () => Promise<unknown>, ms: number): Promise<{ perSecond: number; p50: number }> {
  const latencies: number[] = [];
  const end = performance.now() + ms;
  await Promise.all(
    Array.from({ length: CONNECTIONS }, async () => {
      while (performance.now() < end) {
        const started = performance.now();
        await get();
        latencies.push(performance.now() - started);
      }
    }),
  );
  return { perSecond: latencies.length / (ms / 1000), p50: median(latencies) };
}

const dynamoLocal = await startDynamoLocal();
try {
  await ensureTable(dynamoLocal.endpoint, TABLE);
  const sdk = DynamoDBDocumentClient.from(
    new DynamoDBClient({
      endpoint: dynamoLocal.endpoint,
      region: 'us-east-1',
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    }),
  );
  const ours = new DocumentClient({
    endpoint: dynamoLocal.endpoint,
    region: 'us-east-1',
    credentials: localCredentials,
  });
  const Key = { pk: 'bench#compare', sk: 'item' };
  await sdk.send(
    new SdkPutCommand({ TableName: TABLE, Item: { ...Key, title: 'x'.repeat(500), price: 250000 } }),
  );
  const clients = {
    'AWS SDK DynamoDBDocumentClient': () => sdk.send(new SdkGetCommand({ TableName: TABLE, Key })),
    'DocumentClient (functions/data/dynamodb)': () => ours.send(new GetCommand({ TableName: TABLE, Key })),
  };
  const results = new Map<string, { perSecond: number[]; p50: number[] }>();
  for (const [name, get] of Object.entries(clients)) {
    await loop(get, 1000); // warm-up: sockets open, code paths compiled
    results.set(name, { perSecond: [], p50: [] });
  }
  for (let i = 1; i <= ROUNDS; i++) {
    process.stderr.write(`round ${i}/${ROUNDS}\n`);
    for (const [name, get] of Object.entries(clients)) {
      const { perSecond, p50 } = await loop(get, ROUND_MS);
      results.get(name)?.perSecond.push(perSecond);
      results.get(name)?.p50.push(p50);
    }
  }
  console.log(
    `GetItem of one 0.5 KB item, ${CONNECTIONS} concurrent loops, median of ${ROUNDS} alternating ${ROUND_MS / 1000} s rounds`,
  );
  for (const [name, r] of results) {
    console.log(
      `${name.padEnd(42)} ${String(round(median(r.perSecond))).padStart(7)} req/s  p50 ${round(median(r.p50))} ms`,
    );
  }
} finally {
  await dynamoLocal.stop();
}
