import { DynamoDBClient, UpdateItemCommand } from '@aws-sdk/client-dynamodb';
import { describe, expect, it } from 'vitest';
import { queryAgents, reindexAgents } from '../../functions/data/agents.ts';
import { createAgent } from '../../functions/services/agents.ts';
import { createTenantFromAdmin } from '../../functions/services/tenants.ts';
import { unique } from '../support/factories.ts';

/** Strips an Agent's gsi3 keys, as an Agent stored before that index existed lacks them. */
async function dropListIndex(tenantId: string, id: string) {
  const client = new DynamoDBClient({ endpoint: process.env.DYNAMODB_ENDPOINT!, region: 'us-east-1' });
  await client.send(
    new UpdateItemCommand({
      TableName: process.env.TABLE_NAME,
      Key: { pk: { S: `t#${tenantId}#agent#${id}` }, sk: { S: 'agent' } },
      UpdateExpression: 'REMOVE gsi3pk, gsi3sk',
    }),
  );
  client.destroy();
}

describe('the Agents list index', () => {
  it('reindexAgents puts back an Agent that lacks the list index, unchanged, and is idempotent', async () => {
    // Prepare
    const tenant = await createTenantFromAdmin({ slug: unique('agency'), name: 'Old Data' });
    const old = await createAgent({
      tenantId: tenant.tenantId,
      name: 'Old Agent',
      email: `${unique('a')}@x.example`,
    });
    const kept = await createAgent({
      tenantId: tenant.tenantId,
      name: 'Kept',
      email: `${unique('b')}@x.example`,
    });
    await dropListIndex(tenant.tenantId, old.id);
    const before = await queryAgents({ tenantId: tenant.tenantId, limit: 10 });
    // Act
    const count = await reindexAgents(tenant.tenantId);
    await reindexAgents(tenant.tenantId);
    const after = await queryAgents({ tenantId: tenant.tenantId, limit: 10 });
    // Assess
    expect(before.map((a) => a.id)).toEqual([kept.id]);
    expect(count).toBe(2);
    expect(after.map((a) => a.id).sort()).toEqual([old.id, kept.id].sort());
    expect(after.find((a) => a.id === old.id)).toEqual(old);
  });
});
