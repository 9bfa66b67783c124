import { GetItemCommand } from '@aws-sdk/client-dynamodb';
import { marshall, unmarshall } from '@aws-sdk/util-dynamodb';
import type { DynamoDBRecord } from 'aws-lambda';
import { describe, expect, inject, it } from 'vitest';
import { Lead } from '../../functions/data/entities/lead.ts';
import { getLead } from '../../functions/data/leads.ts';
import { eventId } from '../../functions/domain/events.ts';
import { StreamBatchSplit, handler as streamConsumer } from '../../functions/streams/consumer.ts';
import { localClient } from '../../scripts/local/dynamo-local.ts';
import { restoreEmptyMaps } from '../../scripts/local/stream-poller.ts';
import { createTestLead, createTestTenant } from '../support/factories.ts';

/** A stream record as DynamoDB Local 3.x sends it: an empty map without its type (`{}`). */
function recordWithUntypedEmptyMap(seq: string, entity: string | undefined): DynamoDBRecord {
  return {
    eventID: `e-${seq}`,
    eventName: 'INSERT',
    dynamodb: {
      SequenceNumber: seq,
      Keys: { pk: { S: `t#stream-test#${seq}` }, sk: { S: 'x' } },
      NewImage: {
        pk: { S: `t#stream-test#${seq}` },
        sk: { S: 'x' },
        ...(entity ? { __edb_e__: { S: entity }, __edb_v__: { S: '1' } } : {}),
        responseHeaders: {},
      } as never,
    },
  };
}

describe('the stream consumer and undecodable records', () => {
  it('skips bookkeeping records without decoding them', async () => {
    // Act
    const result = await streamConsumer({
      Records: [
        recordWithUntypedEmptyMap('1', 'idempotencyRecord'),
        recordWithUntypedEmptyMap('2', 'rateLimitWindow'),
      ],
    });
    // Assess
    expect(result.batchItemFailures).toEqual([]);
  });

  it('reports a record it cannot decode and every record after it, so nothing overtakes it', async () => {
    // Act
    const result = await streamConsumer({
      Records: [
        recordWithUntypedEmptyMap('1', 'idempotencyRecord'),
        recordWithUntypedEmptyMap('2', undefined),
        recordWithUntypedEmptyMap('3', 'idempotencyRecord'),
      ],
    });
    // Assess
    expect(result.batchItemFailures).toEqual([{ itemIdentifier: '2' }, { itemIdentifier: '3' }]);
  });

  it('throws when the first record of a batch of several fails, so that Lambda splits the batch', async () => {
    // Act
    const outcome = streamConsumer({
      Records: [
        recordWithUntypedEmptyMap('1', undefined),
        recordWithUntypedEmptyMap('2', 'idempotencyRecord'),
      ],
    });
    // Assess
    await expect(outcome).rejects.toThrow(StreamBatchSplit);
  });

  it('reports the failing record of a batch of one (its retries, then the on-failure destination)', async () => {
    // Act
    const result = await streamConsumer({ Records: [recordWithUntypedEmptyMap('1', undefined)] });
    // Assess
    expect(result.batchItemFailures).toEqual([{ itemIdentifier: '1' }]);
  });

  it('decodes the same record once the local poller has restored the empty map', async () => {
    // Prepare
    const record = recordWithUntypedEmptyMap('1', undefined);
    restoreEmptyMaps(record.dynamodb?.NewImage as Record<string, unknown>);
    // Act
    const result = await streamConsumer({ Records: [record] });
    // Assess
    expect(record.dynamodb?.NewImage?.responseHeaders).toEqual({ M: {} });
    expect(result.batchItemFailures).toEqual([]);
  });

  it('restores untyped empty maps at any depth, and leaves typed values alone', () => {
    // Prepare
    const image: Record<string, unknown> = {
      a: {},
      b: { M: { inner: {}, s: { S: 'x' } } },
      c: { L: [{}, { N: '1' }, { M: { deep: {} } }] },
      d: { L: [] },
      e: { NULL: true },
    };
    // Act
    restoreEmptyMaps(image);
    // Assess
    expect(image).toEqual({
      a: { M: {} },
      b: { M: { inner: { M: {} }, s: { S: 'x' } } },
      c: { L: [{ M: {} }, { N: '1' }, { M: { deep: { M: {} } } }] },
      d: { L: [] },
      e: { NULL: true },
    });
  });
});

describe('the event item (the contract the webhook fan-out reads from the stream)', () => {
  it('is an ElectroDB `event` item with tenantId, id, type, createdAt and the envelope as JSON text', async () => {
    // Prepare
    const tenant = await createTestTenant();
    const lead = await getLead(tenant.tenantId, await createTestLead(tenant.tenantId));
    const item = Lead.put(lead as NonNullable<typeof lead>).params<{ Item: Record<string, unknown> }>().Item;
    const record: DynamoDBRecord = {
      eventID: `contract-${tenant.tenantId}`,
      eventName: 'INSERT',
      dynamodb: { SequenceNumber: '1', NewImage: marshall(item, { removeUndefinedValues: true }) as never },
    };
    // Act
    const result = await streamConsumer({ Records: [record] });
    const id = eventId(`contract-${tenant.tenantId}`, 'lead.created');
    const { Item } = await localClient(inject('dynamoEndpoint')).send(
      new GetItemCommand({
        TableName: inject('tableName'),
        Key: { pk: { S: `t#${tenant.tenantId}#event#${id}` }, sk: { S: 'event' } },
      }),
    );
    // Assess
    expect(result.batchItemFailures).toEqual([]);
    const stored = unmarshall(Item ?? {});
    expect(stored).toMatchObject({ __edb_e__: 'event', tenantId: tenant.tenantId, id, type: 'lead.created' });
    const envelope = JSON.parse(stored.envelope);
    expect(envelope).toEqual({
      id,
      type: 'lead.created',
      version: 1,
      created_at: stored.createdAt,
      tenant: { slug: tenant.slug },
      data: expect.objectContaining({ id: lead?.id, name: lead?.name }),
    });
    expect(stored.ttl).toBeGreaterThan(Date.now() / 1000 + 29 * 24 * 3600);
  });
});
