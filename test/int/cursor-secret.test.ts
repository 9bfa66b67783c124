import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resetConfig } from '../../functions/kernel/config.ts';
import { resetCursorSecret } from '../../functions/kernel/cursor-secret.ts';
import { createTestTenant, type TestTenant } from '../support/factories.ts';
import { startTestApi, type TestApi } from '../support/http.ts';

const ARN = 'arn:aws:secretsmanager:us-east-1:123456789012:secret:cursor-AbCdEf';
const secrets = mockClient(SecretsManagerClient);
const saved = process.env.CURSOR_SECRET;

let api: TestApi;
let tenant: TestTenant;

beforeAll(async () => {
  tenant = await createTestTenant();
  api = await startTestApi(tenant.key);
  // As in Lambda: only the secret's ARN is configured.
  delete process.env.CURSOR_SECRET;
  process.env.CURSOR_SECRET_ARN = ARN;
  resetConfig();
  resetCursorSecret();
  secrets
    .on(GetSecretValueCommand, { SecretId: ARN })
    .resolves({ SecretString: 'a-secret-from-secrets-manager' });
});
afterAll(async () => {
  await api.close();
  secrets.restore();
  process.env.CURSOR_SECRET = saved;
  delete process.env.CURSOR_SECRET_ARN;
  resetConfig();
  resetCursorSecret();
});

describe('the cursor key in Lambda (CURSOR_SECRET_ARN)', () => {
  it('is read from Secrets Manager once, by the first operation that pages, and signs and checks cursors', async () => {
    // Prepare
    for (const title of ['One', 'Two', 'Three'])
      expect((await api.call('POST', '/v1/properties', { body: { title } })).status).toBe(201);
    const readsBefore = secrets.commandCalls(GetSecretValueCommand).length;
    // Act
    const first = await api.call('GET', '/v1/properties?limit=1');
    const second = await api.call('GET', `/v1/properties?limit=1&cursor=${first.body.next_cursor}`);
    const forged = await api.call('GET', `/v1/properties?limit=1&cursor=${first.body.next_cursor}x`);
    // Assess
    expect(readsBefore).toBe(0);
    expect(first.status).toBe(200);
    expect(first.body.next_cursor).toEqual(expect.any(String));
    expect(second.status).toBe(200);
    expect(second.body.data[0].id).not.toBe(first.body.data[0].id);
    expect(forged.status).toBe(422);
    expect(secrets.commandCalls(GetSecretValueCommand)).toHaveLength(1);
  });
});
