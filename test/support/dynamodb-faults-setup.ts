import { relative } from 'node:path';
import { beforeAll, beforeEach, expect } from 'vitest';
import { dynamo } from '../../functions/data/client.ts';
import { tableDefinition } from '../../functions/data/table.ts';
import { currentFunction } from '../../functions/kernel/aws-operations.ts';
import { config } from '../../functions/kernel/config.ts';
import {
  addDynamoFaults,
  consistentReader,
  describeDynamoFaults,
  dynamoFaultSettingsFromEnv,
  NO_DYNAMO_FAULTS,
  streamSeed,
} from '../../scripts/local/dynamodb-faults.ts';

// The int and e2e files run on a DynamoDB Local made as strict as DynamoDB (scripts/local/dynamodb-faults.ts):
// stale non-consistent reads, transactions cancelled for a conflict, throttled attempts. The shared
// client is the one the services, the workers and the in-process HTTP server all use. In beforeAll,
// like the operation recording, so that creating the client does not read the configuration early.
const settings = dynamoFaultSettingsFromEnv();

beforeAll(() => {
  const { DYNAMODB_ENDPOINT, AWS_REGION } = config();
  if (DYNAMODB_ENDPOINT === undefined) return;
  // Each file its own reproducible draws: the run's seed mixed with the file's path. Off, the
  // middleware is there without faults, for the tests that ask for one (withDynamoFaults).
  const path = relative(process.cwd(), expect.getState().testPath ?? '');
  addDynamoFaults(
    dynamo(),
    settings ? { ...settings, seed: streamSeed(settings.seed, path) } : NO_DYNAMO_FAULTS,
    {
      readCurrent: consistentReader(DYNAMODB_ENDPOINT, AWS_REGION),
      keyAttributes: [tableDefinition.partitionKey, tableDefinition.sortKey],
      indexKeys: Object.fromEntries(
        tableDefinition.globalSecondaryIndexes.map((index) => [
          index.indexName,
          [index.partitionKey, index.sortKey],
        ]),
      ),
      // Stale answers (and the faults the caller sees itself) for the code under test: the handlers,
      // the workers and the stream consumer run as functions. The test's own setup and checks read
      // and write the table as it is.
      isCodeUnderTest: () => currentFunction() !== undefined,
    },
  );
});

// A failure names the settings that reproduce it.
beforeEach(({ onTestFailed }) => {
  onTestFailed(() => {
    console.error(`${describeDynamoFaults(settings)} (reproduce with these variables)`);
  });
});
