/**
 * Stale reads across processes (scripts/local/dynamodb-faults.ts, `DYNAMODB_FAULTS_SHARED_DIR`): a
 * write made by one process (the API) is read stale by another (the stream consumer), as DynamoDB's
 * replicas and indexes lag a write whoever made it.
 */
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import {
  addDynamoFaults,
  consistentReader,
  dynamoFaultSettingsFromEnv,
  SHARED_DIR_ENV,
} from '../../scripts/local/dynamodb-faults.ts';

const run = promisify(execFile);
const FAULTS_MODULE = pathToFileURL(
  resolve(import.meta.dirname, '../../scripts/local/dynamodb-faults.ts'),
).href;

/**
 * The other process: puts one item through a client with the faults of its environment (no stale
 * reads of its own), then exits. Node runs the TypeScript module as it is.
 */
const WRITER = `
const faults = await import(${JSON.stringify(FAULTS_MODULE)});
const { DynamoDBClient } = await import('@aws-sdk/client-dynamodb');
const { DynamoDBDocumentClient, PutCommand } = await import('@aws-sdk/lib-dynamodb');
const [endpoint, table, pk] = process.argv.slice(1);
const client = DynamoDBDocumentClient.from(new DynamoDBClient({
  endpoint, region: 'us-east-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
}));
faults.addDynamoFaults(client, { ...faults.dynamoFaultSettingsFromEnv(), staleRate: 0 }, {
  readCurrent: faults.consistentReader(endpoint, 'us-east-1'),
});
await client.send(new PutCommand({ TableName: table, Item: { pk, sk: 'written-elsewhere', by: process.pid } }));
`;

let sharedDir: string;
beforeAll(() => {
  sharedDir = mkdtempSync(join(tmpdir(), 'dynamodb-faults-shared-'));
});
afterAll(() => {
  rmSync(sharedDir, { recursive: true, force: true });
});

describe('a write made by another process', () => {
  it('is read stale by this one through the shared history, and as written by a consistent read', async () => {
    // Prepare: this process reads every non-consistent read as of a minute ago.
    const endpoint = inject('dynamoEndpoint');
    const table = inject('tableName');
    const env = { ...process.env, DYNAMODB_FAULTS: 'on', [SHARED_DIR_ENV]: sharedDir };
    const reader = DynamoDBDocumentClient.from(
      new DynamoDBClient({
        endpoint,
        region: 'us-east-1',
        credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
      }),
    );
    const settings = dynamoFaultSettingsFromEnv(env);
    if (!settings) throw new Error('the faults are on for this test');
    const log = addDynamoFaults(
      reader,
      { ...settings, staleRate: 1, staleMs: 60_000 },
      { readCurrent: consistentReader(endpoint, 'us-east-1') },
    );
    const pk = `faults-processes#${randomUUID()}`;
    // Act: the other process writes, and is gone before this one reads.
    await run(process.execPath, ['--input-type=module', '-e', WRITER, endpoint, table, pk], {
      env,
      cwd: resolve(import.meta.dirname, '../..'),
    });
    const key = { pk, sk: 'written-elsewhere' };
    const eventual = await reader.send(new GetCommand({ TableName: table, Key: key }));
    const consistent = await reader.send(
      new GetCommand({ TableName: table, Key: key, ConsistentRead: true }),
    );
    // Assess
    expect(consistent.Item).toMatchObject(key);
    expect(consistent.Item?.by).not.toBe(process.pid);
    expect(eventual.Item).toBeUndefined();
    expect(log.events).toEqual(['stale GetItem']);
  });
});
