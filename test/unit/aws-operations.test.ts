import { Readable } from 'node:stream';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { CreateScheduleCommand, SchedulerClient } from '@aws-sdk/client-scheduler';
import {
  BatchGetCommand,
  DynamoDBDocumentClient,
  QueryCommand,
  TransactWriteCommand,
} from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import {
  type AwsOperation,
  recordAwsOperations,
  runAsFunction,
} from '../../functions/kernel/aws-operations.ts';

const local = { region: 'us-east-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } };

/**
 * An HTTP handler that answers every request with an empty 200 without leaving the process: these
 * tests look at what is sent, not at a service.
 */
function answeringLocally(body: string) {
  return {
    handle: async () => ({
      response: { statusCode: 200, headers: {}, body: Readable.from([Buffer.from(body)]) },
    }),
    updateHttpClientConfig: () => {},
    httpHandlerConfigs: () => ({}),
  } as never;
}

function documentClient() {
  const client = DynamoDBDocumentClient.from(
    new DynamoDBClient({ ...local, endpoint: 'http://127.0.0.1:9', requestHandler: answeringLocally('{}') }),
  );
  const recorded: AwsOperation[] = [];
  recordAwsOperations(client, (operation) => recorded.push(operation));
  return { client, recorded };
}

describe('recordAwsOperations', () => {
  it('records a Query on an index as dynamodb:Query on table/NAME/index/INDEX, for the function it runs as', async () => {
    // Prepare
    const { client, recorded } = documentClient();
    // Act
    await runAsFunction('listLeads', () =>
      client.send(
        new QueryCommand({
          TableName: 'tbl',
          IndexName: 'gsi1',
          KeyConditionExpression: 'gsi1pk = :pk',
          ExpressionAttributeValues: { ':pk': 't#1' },
        }),
      ),
    );
    // Assess
    expect(recorded).toEqual([
      {
        function: 'listLeads',
        service: 'dynamodb',
        action: 'dynamodb:Query',
        resource: 'table/tbl/index/gsi1',
      },
    ]);
  });

  it('records each item of a transaction as the item action IAM checks, with the entity of a put', async () => {
    // Prepare
    const { client, recorded } = documentClient();
    // Act
    await runAsFunction('functions/workers/ai.ts', () =>
      client.send(
        new TransactWriteCommand({
          TransactItems: [
            { Put: { TableName: 'tbl', Item: { pk: 'a', sk: 'b', __edb_e__: 'lead' } } },
            { Delete: { TableName: 'tbl', Key: { pk: 'c', sk: 'd' } } },
            {
              ConditionCheck: {
                TableName: 'tbl',
                Key: { pk: 'e', sk: 'f' },
                ConditionExpression: 'attribute_exists(pk)',
              },
            },
          ],
        }),
      ),
    );
    // Assess
    expect(recorded.map(({ action, resource, entity }) => ({ action, resource, entity }))).toEqual([
      { action: 'dynamodb:PutItem', resource: 'table/tbl', entity: 'lead' },
      { action: 'dynamodb:DeleteItem', resource: 'table/tbl', entity: undefined },
      { action: 'dynamodb:ConditionCheckItem', resource: 'table/tbl', entity: undefined },
    ]);
  });

  it('records a batch read as dynamodb:BatchGetItem on each table it names', async () => {
    // Prepare
    const { client, recorded } = documentClient();
    // Act
    await runAsFunction('listLeadProperties', () =>
      client.send(new BatchGetCommand({ RequestItems: { tbl: { Keys: [{ pk: 'a', sk: 'b' }] } } })),
    );
    // Assess
    expect(recorded.map((r) => `${r.action} ${r.resource}`)).toEqual(['dynamodb:BatchGetItem table/tbl']);
  });

  it('records nothing outside a function (test setup, scripts)', async () => {
    // Prepare
    const { client, recorded } = documentClient();
    // Act
    await client.send(new BatchGetCommand({ RequestItems: { tbl: { Keys: [{ pk: 'a', sk: 'b' }] } } }));
    // Assess
    expect(recorded).toEqual([]);
  });

  it('works with another SDK client: an S3 PutObject as s3:PutObject on bucket/key', async () => {
    // Prepare
    const s3 = new S3Client({
      ...local,
      endpoint: 'http://127.0.0.1:9',
      forcePathStyle: true,
      requestHandler: answeringLocally(''),
    });
    const recorded: AwsOperation[] = [];
    recordAwsOperations(s3, (operation) => recorded.push(operation));
    // Act
    await runAsFunction('importImage', () =>
      s3.send(new PutObjectCommand({ Bucket: 'photos', Key: 't/1/p.jpg', Body: 'x' })),
    );
    // Assess
    expect(recorded).toEqual([
      { function: 'importImage', service: 's3', action: 's3:PutObject', resource: 'photos/t/1/p.jpg' },
    ]);
  });

  it('records a Scheduler CreateSchedule as the schedule in its group, and iam:PassRole of its target role', async () => {
    // Prepare
    const scheduler = new SchedulerClient({
      ...local,
      endpoint: 'http://127.0.0.1:9',
      requestHandler: answeringLocally('{}'),
    });
    const recorded: AwsOperation[] = [];
    recordAwsOperations(scheduler, (operation) => recorded.push(operation));
    // Act
    await runAsFunction('webhookDelivery', () =>
      scheduler.send(
        new CreateScheduleCommand({
          Name: 'webhook-abc',
          GroupName: 'retries',
          ScheduleExpression: 'at(2030-01-01T00:00:00)',
          FlexibleTimeWindow: { Mode: 'OFF' },
          Target: {
            Arn: 'arn:aws:sqs:us-east-1:123456789012:q',
            RoleArn: 'arn:aws:iam::123456789012:role/scheduler',
          },
        }),
      ),
    );
    // Assess
    expect(recorded).toEqual([
      {
        function: 'webhookDelivery',
        service: 'scheduler',
        action: 'scheduler:CreateSchedule',
        resource: 'schedule/retries/webhook-abc',
      },
      { function: 'webhookDelivery', service: 'iam', action: 'iam:PassRole', resource: 'role/scheduler' },
    ]);
  });
});
