import { randomUUID } from 'node:crypto';
import { GetCommand, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { dynamo, metered, tableName } from '../../functions/data/client.ts';

/** A partition no other test (nor another run) writes to. */
const keyOf = () => ({ pk: `t#test-${randomUUID()}`, sk: 'doc' });

describe('the shared DynamoDB document client', () => {
  it('is one client per container, in the standard retry mode', async () => {
    // Act
    const first = dynamo();
    const second = dynamo();
    // Assess
    expect(second).toBe(first);
    expect(((await first.config.retryStrategy()) as { mode?: string }).mode).toBe('standard');
  });

  it('meters round trips, operations and consumed read and write units inside metered()', async () => {
    // Prepare
    const key = keyOf();
    // Act
    const { result, meter } = await metered(async () => {
      await dynamo().send(new PutCommand({ TableName: tableName(), Item: { ...key, title: 'Metered' } }));
      const { Item } = await dynamo().send(
        new GetCommand({ TableName: tableName(), Key: key, ConsistentRead: true }),
      );
      await dynamo().send(
        new QueryCommand({
          TableName: tableName(),
          KeyConditionExpression: 'pk = :pk',
          ExpressionAttributeValues: { ':pk': key.pk },
        }),
      );
      return Item;
    });
    // Assess
    expect(result).toEqual({ ...key, title: 'Metered' });
    expect(meter.roundTrips).toBe(3);
    expect(meter.operations).toEqual(['PutItem', 'GetItem', 'Query']);
    // One small item: 1 WCU to write, 1 RCU to read consistently, 0.5 RCU to query eventually consistently.
    expect(meter.writeUnits).toBe(1);
    expect(meter.readUnits).toBe(1.5);
  });

  it('does not ask for consumed capacity outside metered()', async () => {
    // Prepare
    const key = keyOf();
    // Act
    const output = await dynamo().send(new GetCommand({ TableName: tableName(), Key: key }));
    // Assess
    expect(output.ConsumedCapacity).toBeUndefined();
  });

  it('keeps a caller’s own ReturnConsumedCapacity inside metered()', async () => {
    // Prepare
    const key = keyOf();
    // Act
    const { result } = await metered(() =>
      dynamo().send(new GetCommand({ TableName: tableName(), Key: key, ReturnConsumedCapacity: 'INDEXES' })),
    );
    // Assess
    expect(result.ConsumedCapacity).toMatchObject({ TableName: tableName(), Table: { CapacityUnits: 0.5 } });
  });
});
