/**
 * One moving part of the soak (scripts/soak/main.ts) in a process of its own, so that the driver can
 * `kill -9` it and start it again as Lambda's runtime would lose and replace a container:
 *
 *   node scripts/soak/part.ts api|stream|webhooks|ai|images
 *
 * The driver passes the local stack's environment (table, endpoints, RETRY_DELAY_SCALE, the DynamoDB
 * fault settings). Every part runs with the DynamoDB faults of test/support/dynamodb-faults.ts on its
 * shared client: stale non-consistent reads, cancelled transactions, throttled attempts.
 *
 * SOAK_PLANT_LOSS=ack-before-write is read here and only here (never by functions/, so no Lambda can
 * enable it): the stream part then acknowledges every fourth record of a batch without handing it to
 * the consumer, the loss the audit must catch.
 */
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { DynamoDBStreamEvent } from 'aws-lambda';
import {
  addDynamoFaults,
  consistentReader,
  dynamoFaultSettingsFromEnv,
  streamSeed,
} from '../../test/support/dynamodb-faults.ts';
import { PART_READY, plantedLoss, SOAK_PARTS, type SoakPart } from './parts.ts';

const FUNCTIONS_HTTP = resolve(import.meta.dirname, '../../functions/http');

type StreamHandler = (
  event: DynamoDBStreamEvent,
) => Promise<{ batchItemFailures: { itemIdentifier: string }[] }>;

async function main(): Promise<void> {
  const part = process.argv[2] as SoakPart;
  if (!(part in SOAK_PARTS))
    throw new Error(`Unknown soak part "${part}": one of ${Object.keys(SOAK_PARTS).join(', ')}`);
  const endpoint = process.env.DYNAMODB_ENDPOINT;
  const tableName = process.env.TABLE_NAME;
  if (!endpoint || !tableName) throw new Error('DYNAMODB_ENDPOINT and TABLE_NAME are set by the soak driver');

  // Faults on the one client the services, the workers and the local queue share, before any call.
  const { dynamo } = await import('../../functions/data/client.ts');
  const { tableDefinition } = await import('../../functions/data/table.ts');
  const settings = dynamoFaultSettingsFromEnv();
  if (settings) {
    // Each start of each part draws its own decisions, reproducibly: the run's seed, the part, the start.
    const stream = `${part}#${process.env.SOAK_START ?? '0'}`;
    addDynamoFaults(
      dynamo(),
      { ...settings, seed: streamSeed(settings.seed, stream) },
      {
        readCurrent: consistentReader(endpoint, process.env.AWS_REGION ?? 'us-east-1'),
        keyAttributes: [tableDefinition.partitionKey, tableDefinition.sortKey],
      },
    );
  }
  (await import('../local/adapters/index.ts')).bindLocalAdapters();

  if (part === 'api') {
    // Every route's handler loaded before the port opens (the local server loads each on its first
    // request): a restarted API answers at once, as a warm Lambda would, rather than timing requests out.
    const { routes } = await import('../../functions/routes.ts');
    for (const route of routes) await import(pathToFileURL(resolve(FUNCTIONS_HTTP, route.entry)).href);
    const { startApiServer } = await import('../local/server.ts');
    const { url } = await startApiServer({ port: Number(process.env.PORT ?? 0) });
    process.stdout.write(`${PART_READY} ${url}\n`);
    return;
  }

  const { workerFor } = await import('../../functions/workers.ts');
  const { startWorker } = await import('../local/workers.ts');
  const stack = { endpoint, tableName, ...(process.env.DATA_DIR ? { dataDir: process.env.DATA_DIR } : {}) };
  for (const name of SOAK_PARTS[part]) {
    const row = workerFor(name);
    let handler: StreamHandler | undefined;
    if (row.trigger.kind === 'stream' && process.env.SOAK_PLANT_LOSS === 'ack-before-write') {
      const { handler: consumer } = (await import('../../functions/streams/consumer.ts')) as {
        handler: StreamHandler;
      };
      const choose = plantedLoss();
      handler = async (event) => {
        const { kept, dropped } = choose(event.Records);
        for (const record of dropped)
          process.stderr.write(`PLANTED LOSS: acknowledged ${record.eventID} unprocessed\n`);
        const result = await consumer({ Records: kept });
        return result;
      };
    }
    await startWorker(row, stack, handler as never);
  }
  process.stdout.write(`${PART_READY}\n`);
}

await main();
