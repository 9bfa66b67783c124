import { randomUUID } from 'node:crypto';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dynamo, tableName } from '../../functions/data/client.ts';
import { fingerprintOf } from '../../functions/pipeline/middleware/idempotency.ts';
import { afterIndexLag } from '../support/eventually.ts';
import { createTestTenant, type TestTenant, unique } from '../support/factories.ts';
import { startTestApi, type TestApi } from '../support/http.ts';

/**
 * A run that commits and then dies before its answer is stored (a killed container, a timeout)
 * leaves its Idempotency-Key `in_progress`; once the claim lapses the client's retry runs the request
 * again. These tests make that state by hand after a first run, exactly as the crash leaves it (the
 * key's record in progress, its lock in the past, no stored answer), then retry with the same key and
 * request: the retry must answer with what the first run created and create nothing more.
 */
let api: TestApi;
let tenant: TestTenant;

beforeAll(async () => {
  tenant = await createTestTenant();
  api = await startTestApi(tenant.key);
});
afterAll(async () => api.close());

/** The key's record as a run that died after committing leaves it, its lock lapsed a second ago. */
async function crashAfterCommit(idempotencyKey: string): Promise<void> {
  await dynamo().send(
    new UpdateCommand({
      TableName: tableName(),
      Key: { pk: `t#${tenant.tenantId}#idempotency#${tenant.keyId}#${idempotencyKey}`, sk: 'idempotency' },
      UpdateExpression:
        'SET #state = :inProgress, lockedUntil = :lapsed REMOVE responseStatus, responseHeaders, responseBody',
      ConditionExpression: 'attribute_exists(pk)',
      ExpressionAttributeNames: { '#state': 'state' },
      ExpressionAttributeValues: { ':inProgress': 'in_progress', ':lapsed': Date.now() - 1000 },
    }),
  );
}

describe('a retry after a run that committed and died before storing its answer', () => {
  it('ingest: answers the Inquiry and Lead the first run made, and records no second Inquiry', async () => {
    const headers = { 'idempotency-key': randomUUID() };
    const body = {
      source: 'crash-test',
      type: 'inquiry',
      person: { name: 'Crash Window', email: `${unique('crash')}@example.com` },
      message: 'Is it still available?',
    };
    const first = await api.call('POST', '/v1/leads:ingest', { body, headers });
    expect(first.status).toBe(201);
    await crashAfterCommit(headers['idempotency-key']);

    const retry = await api.call('POST', '/v1/leads:ingest', { body, headers });

    expect(retry.status).toBe(201);
    expect(retry.headers.get('idempotent-replayed')).toBeNull();
    expect(retry.body.inquiry_id).toBe(first.body.inquiry_id);
    expect(retry.body.lead.id).toBe(first.body.lead.id);
    await afterIndexLag();
    const inquiries = await api.call('GET', `/v1/inquiries?lead_id=${first.body.lead.id}&limit=50`);
    expect(inquiries.body.data.map((i: { id: string }) => i.id)).toEqual([first.body.inquiry_id]);
    // The retry's answer is now the stored one.
    const again = await api.call('POST', '/v1/leads:ingest', { body, headers });
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body.inquiry_id).toBe(first.body.inquiry_id);
  });

  it('ingest of a note: answers the Activity the first run made, and records no second one', async () => {
    const headers = { 'idempotency-key': randomUUID() };
    const body = {
      source: 'crash-test',
      type: 'note',
      person: { name: 'Crash Note', email: `${unique('crash')}@example.com` },
      message: 'Called back',
    };
    const first = await api.call('POST', '/v1/leads:ingest', { body, headers });
    expect(first.status).toBe(201);
    await crashAfterCommit(headers['idempotency-key']);

    const retry = await api.call('POST', '/v1/leads:ingest', { body, headers });

    expect(retry.status).toBe(201);
    expect(retry.body.activity_id).toBe(first.body.activity_id);
    await afterIndexLag();
    const activities = await api.call('GET', `/v1/leads/${first.body.lead.id}/activities?limit=50`);
    expect(activities.body.data.map((a: { id: string }) => a.id)).toEqual([first.body.activity_id]);
  });

  it('POST /v1/properties: answers the listing the first run made, and creates no second one', async () => {
    const headers = { 'idempotency-key': randomUUID() };
    const title = unique('Crash flat');
    const body = {
      title,
      listing_type: 'sale',
      price: '250000',
      currency: 'EUR',
      property_type: 'apartment',
    };
    const first = await api.call('POST', '/v1/properties', { body, headers });
    expect(first.status).toBe(201);
    await crashAfterCommit(headers['idempotency-key']);

    const retry = await api.call('POST', '/v1/properties', { body, headers });

    expect(retry.status).toBe(201);
    expect(retry.body.id).toBe(first.body.id);
    await afterIndexLag();
    const listed = await api.call('GET', '/v1/properties?limit=200&include_archived=true');
    expect(listed.body.data.filter((p: { title: string }) => p.title === title)).toHaveLength(1);
  });

  it('POST activities: answers the Activity the first run made, and creates no second one', async () => {
    const lead = await api.call('POST', '/v1/leads', {
      body: { name: 'Crash Activity', email: `${unique('crash')}@example.com` },
    });
    expect(lead.status).toBe(201);
    const headers = { 'idempotency-key': randomUUID() };
    const body = { kind: 'call', title: 'First call' };
    const first = await api.call('POST', `/v1/leads/${lead.body.id}/activities`, { body, headers });
    expect(first.status).toBe(201);
    await crashAfterCommit(headers['idempotency-key']);

    const retry = await api.call('POST', `/v1/leads/${lead.body.id}/activities`, { body, headers });

    expect(retry.status).toBe(201);
    expect(retry.body.id).toBe(first.body.id);
    await afterIndexLag();
    const activities = await api.call('GET', `/v1/leads/${lead.body.id}/activities?limit=50`);
    expect(activities.body.data.map((a: { id: string }) => a.id)).toEqual([first.body.id]);
  });

  it('a run that died before it committed: the retry does the work, once', async () => {
    const idempotencyKey = randomUUID();
    const headers = { 'idempotency-key': idempotencyKey };
    const body = {
      source: 'crash-test',
      type: 'inquiry',
      person: { name: 'Crash Early', email: `${unique('crash')}@example.com` },
    };
    // A run of this request claimed the key and died before writing anything: its record as the
    // claim leaves it, the lock lapsed.
    await dynamo().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: { pk: `t#${tenant.tenantId}#idempotency#${tenant.keyId}#${idempotencyKey}`, sk: 'idempotency' },
        UpdateExpression:
          'SET #state = :inProgress, lockedUntil = :lapsed, fingerprint = :fingerprint, idSeed = :seed, #ttl = :ttl',
        ExpressionAttributeNames: { '#state': 'state', '#ttl': 'ttl' },
        ExpressionAttributeValues: {
          ':inProgress': 'in_progress',
          ':lapsed': Date.now() - 1000,
          ':fingerprint': fingerprintOfIngest(body),
          ':seed': randomUUID(),
          ':ttl': Math.floor(Date.now() / 1000) + 3600,
        },
      }),
    );

    const retry = await api.call('POST', '/v1/leads:ingest', { body, headers });

    expect(retry.status).toBe(201);
    await afterIndexLag();
    const inquiries = await api.call('GET', `/v1/inquiries?lead_id=${retry.body.lead.id}&limit=50`);
    expect(inquiries.body.data.map((i: { id: string }) => i.id)).toEqual([retry.body.inquiry_id]);
  });
});

/** The fingerprint the service gives POST /v1/leads:ingest with this body. */
function fingerprintOfIngest(body: unknown): string {
  return fingerprintOf({
    rawPath: '/v1/leads:ingest',
    rawQueryString: '',
    body: JSON.stringify(body),
    isBase64Encoded: false,
    requestContext: { http: { method: 'POST' } },
  } as Parameters<typeof fingerprintOf>[0]);
}
