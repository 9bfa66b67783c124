/**
 * Defence in depth: control characters never reach an email subject, webhook
 * URLs are stored normalised and a raw CR/LF is refused (422), `authenticate` goes by the stored key
 * kind, and a webhook send refused for its address does not say what the name resolved to.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../../functions/data/api-keys.ts';
import { getEndpoint } from '../../functions/data/webhooks.ts';
import { displayPrefix, hashSecretKey } from '../../functions/domain/api-key-secret.ts';
import { assignmentNotice, headerSafe } from '../../functions/domain/owner-notices.ts';
import { RequestValidationError } from '../../functions/kernel/errors.ts';
import { publicDispatcher } from '../../functions/kernel/net/public-dispatcher.ts';
import { sendWebhook } from '../../functions/kernel/net/webhook-sender.ts';
import { createEndpoint } from '../../functions/services/webhook-endpoints.ts';
import { createTestTenant, type TestTenant } from '../support/factories.ts';
import { startTestApi } from '../support/http.ts';

let tenant: TestTenant;

beforeAll(async () => {
  tenant = await createTestTenant();
});

describe('email subjects and headers', () => {
  it('strip every control character, CR and LF included, to one line', () => {
    expect(headerSafe('Ana\r\nBcc: victim@example.com\tX\u0000\u007f')).toBe('Ana Bcc: victim@example.com X');
    const notice = assignmentNotice({
      id: 'l1',
      name: 'Eve\r\nBcc: all@example.com',
      email: 'e@example.com',
    } as never);
    expect(notice.subject).toBe('New lead assigned to you: Eve Bcc: all@example.com');
    expect(notice.subject).not.toMatch(/[\r\n]/);
  });
});

describe('webhook URLs', () => {
  it('a URL with a raw CR or LF is refused with 422 on its field', async () => {
    for (const url of ['https://93.184.216.34/a\r\nBcc: x@example.com', 'https://93.184.216.34/a\nb']) {
      const attempt = createEndpoint({
        tenantId: tenant.tenantId,
        url,
        events: ['lead.created'],
        via: 'console',
      });
      await expect(attempt).rejects.toBeInstanceOf(RequestValidationError);
      await expect(attempt).rejects.toMatchObject({
        issues: [{ loc: ['body', 'url'], type: 'url_not_allowed' }],
      });
    }
  });

  it('is stored normalised (new URL(url).href)', async () => {
    const endpoint = await createEndpoint({
      tenantId: tenant.tenantId,
      url: 'HTTPS://Hooks.Example.COM:443/a path?x=1',
      events: ['lead.created'],
      via: 'console',
    });
    expect((await getEndpoint(tenant.tenantId, endpoint.id))?.url).toBe(
      'https://hooks.example.com/a%20path?x=1',
    );
  });

  it('a send refused for its address names the refusal, not what the name resolves to', async () => {
    const dispatcher = publicDispatcher({
      resolver: async () => [{ address: '10.9.8.7', family: 4 }],
      allowPrivate: false,
    });
    const response = await sendWebhook(
      {
        url: 'https://internal.example.com/hook',
        secret: `whsec_${Buffer.alloc(32).toString('base64')}`,
        messageId: 'm1',
        payload: '{}',
      },
      { dispatcher },
    );
    expect(response.statusCode).toBeNull();
    expect(response.error).toMatch(/^EBLOCKEDADDRESS/);
    expect(response.error).not.toContain('10.9.8.7');
  });
});

describe('authenticate', () => {
  it('goes by the stored kind: a key item that is not a secret key never authenticates, whatever its prefix', async () => {
    // Prepare: an item stored as a publishable key, under the hash of a svc_live_-looking secret.
    const secret = `svc_live_${'x'.repeat(40)}`;
    await createApiKey({
      keyHash: hashSecretKey(secret),
      id: crypto.randomUUID(),
      tenantId: tenant.tenantId,
      kind: 'publishable',
      name: 'not a secret key',
      scopes: ['properties:read'],
      origins: ['https://www.example.com'],
      displayPrefix: displayPrefix(secret),
      createdAt: new Date().toISOString(),
    });
    const api = await startTestApi();
    try {
      // Act
      const res = await api.call('GET', '/v1/places', { key: secret });
      // Assess
      expect(res.status, res.text).toBe(401);
    } finally {
      await api.close();
    }
  });
});
