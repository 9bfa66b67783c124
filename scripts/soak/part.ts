/**
 * One moving part of the soak (scripts/soak/main.ts) in a process of its own, so that the driver can
 * `kill -9` it and start it again as Lambda's runtime would lose and replace a container:
 *
 *   node scripts/soak/part.ts api|stream|webhooks|ai|images
 *
 * The driver passes the local stack's environment (table, endpoints, RETRY_DELAY_SCALE, the DynamoDB
 * fault settings). Every part runs with the DynamoDB faults of scripts/local/dynamodb-faults.ts on its
 * shared client: stale non-consistent reads, cancelled transactions, throttled attempts.
 *
 * SOAK_PLANT (scripts/soak/plants.ts) is read here and by the local Scheduler stand-in, never by
 * functions/, so no Lambda can enable it: each part plants the faults that would live in it, the
 * losses the audit must catch.
 */
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { DynamoDBStreamEvent } from 'aws-lambda';
import {
  addDynamoFaults,
  consistentReader,
  dynamoFaultSettingsFromEnv,
  streamSeed,
} from '../local/dynamodb-faults.ts';
import { PART_READY, plantedLoss, SOAK_PARTS, type SoakPart } from './parts.ts';
import { plantAiAcks, plantEmailDrop, plantEventWrites, plantedFault, plantWebhookTwice } from './plants.ts';

/** What a plant did, on stderr: the driver echoes `PLANTED` lines to its screen. */
const report = (line: string) => process.stderr.write(`${line}\n`);

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
  const { currentFunction } = await import('../../functions/kernel/aws-operations.ts');
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
        // Only the functions' calls are DynamoDB's: the local SQS, Streams and Scheduler stand-ins
        // keep their state in the table too, and are not faulted as if they were DynamoDB.
        isCodeUnderTest: () => currentFunction() !== undefined,
        // The outbox is the local SES: an email sent is not a DynamoDB write that can be lost or
        // answered ambiguously (the audit counts every Owner email exactly).
        exempt: (input) => (input.Item as { __edb_e__?: unknown } | undefined)?.__edb_e__ === 'outboxEmail',
      },
    );
  }
  (await import('../local/adapters/index.ts')).bindLocalAdapters();
  const plant = plantedFault();
  if (plant && part === 'stream') {
    plantEventWrites(dynamo(), plant, report);
    if (plant === 'drop-owner-email') {
      const { emails, setEmails } = await import('../../functions/kernel/ports/email.ts');
      setEmails(plantEmailDrop(emails(), report));
    }
  }
  if (plant === 'webhook-twice-new-id' && part === 'webhooks') await plantWebhookTwice(report);

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
    if (row.trigger.kind === 'stream' && plant === 'stream-ack-unprocessed') {
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
    if (row.name === 'aiWorker' && plant) {
      const { handler: worker } = (await import('../../functions/workers/ai.ts')) as {
        handler: (event: import('aws-lambda').SQSEvent) => Promise<unknown>;
      };
      handler = plantAiAcks(worker, plant, report) as never;
    }
    await startWorker(row, stack, handler as never);
  }
  process.stdout.write(`${PART_READY}\n`);
}

await main();
