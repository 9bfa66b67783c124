/**
 * A new Turnstile secret key reaches warm containers (docs/operations.md, "Rotate the secrets"):
 * Cloudflare issues a new key and the operator puts it in Secrets Manager; a container that read the
 * old one must not go on refusing every Inquiry. Secrets Manager is taken at the SDK's edge
 * (aws-sdk-client-mock), Cloudflare's siteverify at the HTTP edge (undici's MockAgent): it accepts the
 * token with the key it holds and answers `invalid-input-secret` to any other, as Cloudflare does.
 */
import {
  GetSecretValueCommand,
  PutSecretValueCommand,
  SecretsManagerClient,
} from '@aws-sdk/client-secrets-manager';
import { mockClient } from 'aws-sdk-client-mock';
import { type Dispatcher, getGlobalDispatcher, MockAgent, setGlobalDispatcher } from 'undici';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { resetConfig } from '../../functions/kernel/config.ts';
import { TURNSTILE_SITEVERIFY_URL } from '../../functions/kernel/ports/turnstile.ts';
import { resetSiteSecrets, SITE_SECRET_TTL_MS } from '../../functions/kernel/site-secrets.ts';
import { issueSiteKey } from '../../functions/services/site-keys.ts';
import { createTestTenant, unique } from '../support/factories.ts';
import { startTestApi, type TestApi } from '../support/http.ts';

const ARN = 'arn:aws:secretsmanager:us-east-1:123456789012:secret:TurnstileSecret-AbCdEf';
const PAGE = 'https://www.agency.example';
const FIRST_KEY = '0x4AAAAAAA-first-secret-key-of-the-widget';
const SECOND_KEY = '0x4AAAAAAA-second-secret-key-of-the-widget';
/** A token the widget gave a visitor who solved the challenge. */
const SOLVED = 'token-of-a-solved-challenge';

const secrets = mockClient(SecretsManagerClient);
/** What Secrets Manager holds (AWSCURRENT). */
let stored: string;
/** The keys Cloudflare accepts for the widget. */
let cloudflareKeys: Set<string>;
/** The secret of every siteverify call, in order. */
let sentSecrets: string[];

let agent: MockAgent;
let previousDispatcher: Dispatcher;
let api: TestApi;
let siteKey: string;

function mockCloudflare(): void {
  const { origin, pathname } = new URL(TURNSTILE_SITEVERIFY_URL);
  agent
    .get(origin)
    .intercept({ path: pathname, method: 'POST' })
    .reply((request): { statusCode: number; data: object } => {
      const form = new URLSearchParams(String(request.body));
      const secret = form.get('secret') ?? '';
      sentSecrets.push(secret);
      const refused = (code: string) => ({
        statusCode: 200,
        data: { success: false, 'error-codes': [code] },
      });
      if (!cloudflareKeys.has(secret)) return refused('invalid-input-secret');
      if (form.get('response') !== SOLVED) return refused('invalid-input-response');
      const passed = { success: true, 'error-codes': [], hostname: 'www.agency.example', action: 'inquiry' };
      return { statusCode: 200, data: passed };
    })
    .persist();
}

/** An inquiry as the site's form sends it. */
async function inquire(token = SOLVED): Promise<number> {
  const query = new URLSearchParams({ key: siteKey, origin: PAGE });
  const answer = await api.call('POST', `/v1/site/leads?${query}`, {
    key: null,
    body: {
      name: 'Visitor',
      email: `${unique('visitor')}@example.com`,
      message: 'Still free?',
      turnstile: token,
    },
    headers: { origin: PAGE },
  });
  return answer.status;
}

function reads(): number {
  return secrets.commandCalls(GetSecretValueCommand).length;
}

beforeAll(async () => {
  const tenant = await createTestTenant();
  siteKey = (await issueSiteKey({ tenantId: tenant.tenantId, origins: PAGE })).key;
  api = await startTestApi();
  previousDispatcher = getGlobalDispatcher();
  agent = new MockAgent();
  // The test's own requests to the local API go out for real.
  agent.enableNetConnect(/^127\.0\.0\.1:\d+$/);
  setGlobalDispatcher(agent);
  mockCloudflare();
  // As in Lambda: the inquiry function holds the secret's ARN only.
  vi.stubEnv('TURNSTILE_SECRET_ARN', ARN);
  resetConfig();
});
beforeEach(() => {
  stored = FIRST_KEY;
  cloudflareKeys = new Set([FIRST_KEY]);
  sentSecrets = [];
  secrets.reset();
  secrets.on(GetSecretValueCommand, { SecretId: ARN }).callsFake(() => ({ SecretString: stored }));
  secrets.on(PutSecretValueCommand, { SecretId: ARN }).callsFake((input: { SecretString: string }) => {
    stored = input.SecretString;
    return { ARN, VersionId: 'v2' };
  });
  resetSiteSecrets();
});
afterEach(() => {
  vi.useRealTimers();
});
afterAll(async () => {
  await api?.close();
  setGlobalDispatcher(previousDispatcher);
  await agent?.close();
  secrets.restore();
  vi.unstubAllEnvs();
  resetConfig();
  resetSiteSecrets();
});

/** The operator puts the key Cloudflare issued (the console or the CLI: PutSecretValue). */
async function putKey(key: string): Promise<void> {
  await new SecretsManagerClient({ region: 'us-east-1' }).send(
    new PutSecretValueCommand({ SecretId: ARN, SecretString: key }),
  );
}

describe('a new Turnstile secret key in a warm container', () => {
  it('Cloudflare refuses the old key: the container reads the new one and the Inquiry passes', async () => {
    // Prepare: a warm container on the first key.
    expect(await inquire()).toBe(201);
    // Cloudflare rotates the key at once (the old one stops working), the operator puts the new one.
    cloudflareKeys = new Set([SECOND_KEY]);
    await putKey(SECOND_KEY);

    // Act
    const status = await inquire();

    // Assess: refused with the old key, verified again with the new one.
    expect(status).toBe(201);
    expect(sentSecrets.slice(-2)).toEqual([FIRST_KEY, SECOND_KEY]);
    expect(await inquire()).toBe(201);
    expect(sentSecrets.at(-1)).toBe(SECOND_KEY);
  });

  it('Cloudflare still takes both keys: the container moves to the new one within its re-read time', async () => {
    // Prepare: a warm container on the first key; Cloudflare's grace period accepts both.
    vi.useFakeTimers({ toFake: ['Date'] });
    expect(await inquire()).toBe(201);
    cloudflareKeys = new Set([FIRST_KEY, SECOND_KEY]);
    await putKey(SECOND_KEY);

    // Act
    vi.setSystemTime(Date.now() + SITE_SECRET_TTL_MS + 1);
    const status = await inquire();

    // Assess
    expect(status).toBe(201);
    expect(sentSecrets.at(-1)).toBe(SECOND_KEY);
  });

  it("a visitor's bad token is refused without reading the secret again", async () => {
    // Prepare
    expect(await inquire()).toBe(201);
    const before = reads();

    // Act
    const statuses = [await inquire('forged-token'), await inquire('another-forged-token')];

    // Assess
    expect(statuses).toEqual([403, 403]);
    expect(reads()).toBe(before);
  });
});
