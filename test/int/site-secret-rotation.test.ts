/**
 * Rotating the origin secret (docs/operations.md, "Rotate the secrets") without refusing the site:
 * CloudFront sends the value its distribution was last deployed with, and the site functions must
 * accept it until the distribution sends the new one. Secrets Manager is taken at the SDK's edge
 * (aws-sdk-client-mock) as a small versioned secret that moves its staging labels as AWS documents:
 * a new value becomes AWSCURRENT and the one it replaced AWSPREVIOUS. The runbook's steps are sent
 * through the SDK as the operator's CLI sends them (PutSecretValue, UpdateSecretVersionStage); the
 * deploy between them is checked on the template (test/infra/site-origin-secret-version.test.ts).
 */
import { randomUUID } from 'node:crypto';
import {
  GetSecretValueCommand,
  PutSecretValueCommand,
  ResourceNotFoundException,
  SecretsManagerClient,
  UpdateSecretVersionStageCommand,
} from '@aws-sdk/client-secrets-manager';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { resetConfig } from '../../functions/kernel/config.ts';
import {
  resetSiteSecrets,
  SITE_SECRET_REFRESH_MIN_MS,
  SITE_SECRET_TTL_MS,
} from '../../functions/kernel/site-secrets.ts';
import { issueSiteKey } from '../../functions/services/site-keys.ts';
import { createTestTenant } from '../support/factories.ts';
import { startTestApi, type TestApi } from '../support/http.ts';

const ARN = 'arn:aws:secretsmanager:us-east-1:123456789012:secret:SiteOriginSecret-AbCdEf';
const OLD = 'origin-secret-before-the-rotation-0123456789';
const NEW = 'origin-secret-after-the-rotation-9876543210';

interface Version {
  id: string;
  value: string;
  stages: Set<string>;
}

/** One secret as Secrets Manager keeps it: versions and their staging labels. */
class VersionedSecret {
  readonly versions: Version[] = [];

  put(value: string): string {
    const id = randomUUID();
    for (const version of this.versions) {
      version.stages.delete('AWSPREVIOUS');
      if (version.stages.delete('AWSCURRENT')) version.stages.add('AWSPREVIOUS');
    }
    this.versions.push({ id, value, stages: new Set(['AWSCURRENT']) });
    return id;
  }

  get(input: { VersionStage?: string; VersionId?: string }): Version {
    const stage = input.VersionId ? undefined : (input.VersionStage ?? 'AWSCURRENT');
    const found = this.versions.find((v) => (stage ? v.stages.has(stage) : v.id === input.VersionId));
    if (!found) {
      throw new ResourceNotFoundException({
        $metadata: { httpStatusCode: 400 },
        message: "Secrets Manager can't find the specified secret value for staging label: " + stage,
      });
    }
    return found;
  }

  removeStage(stage: string, fromVersionId: string): void {
    this.versions.find((v) => v.id === fromVersionId)?.stages.delete(stage);
  }
}

const secrets = mockClient(SecretsManagerClient);
let secret: VersionedSecret;
/** What the operator's shell holds: a client of its own (the functions have theirs). */
const operator = new SecretsManagerClient({ region: 'us-east-1' });

let api: TestApi;
let siteKey: string;

function mockSecretsManager(): void {
  secrets.reset();
  secrets.on(GetSecretValueCommand).callsFake((input: { SecretId: string; VersionStage?: string }) => {
    expect(input.SecretId).toBe(ARN);
    const version = secret.get(input);
    return { ARN, VersionId: version.id, SecretString: version.value, VersionStages: [...version.stages] };
  });
  secrets.on(PutSecretValueCommand).callsFake((input: { SecretString: string }) => ({
    ARN,
    VersionId: secret.put(input.SecretString),
    VersionStages: ['AWSCURRENT'],
  }));
  secrets
    .on(UpdateSecretVersionStageCommand)
    .callsFake((input: { VersionStage: string; RemoveFromVersionId: string }) => {
      secret.removeStage(input.VersionStage, input.RemoveFromVersionId);
      return { ARN };
    });
}

/** A site read as CloudFront forwards it, with the value of X-Origin-Verify it was deployed with. */
async function viaCloudFront(originVerify: string): Promise<number> {
  const answer = await api.call('GET', `/v1/site/properties?key=${siteKey}`, {
    key: null,
    headers: { 'x-origin-verify': originVerify, 'cloudfront-viewer-address': '198.51.100.20:40000' },
  });
  return answer.status;
}

/** A container started now: it reads the secret afresh (as after a deploy or a scale-out). */
function freshContainer(): void {
  resetSiteSecrets();
}

function reads(): number {
  return secrets.commandCalls(GetSecretValueCommand).length;
}

beforeAll(async () => {
  const tenant = await createTestTenant();
  siteKey = (await issueSiteKey({ tenantId: tenant.tenantId, origins: 'https://www.agency.example' })).key;
  api = await startTestApi();
  // As in Lambda: the site functions hold the secret's ARN only.
  vi.stubEnv('SITE_ORIGIN_SECRET_ARN', ARN);
  resetConfig();
});
afterEach(() => {
  vi.useRealTimers();
});
afterAll(async () => {
  await api?.close();
  secrets.restore();
  vi.unstubAllEnvs();
  resetConfig();
  resetSiteSecrets();
});

describe('rotating the origin secret, as the runbook says', () => {
  it('accepts the old and the new value while CloudFront changes over, then only the new one', async () => {
    // Prepare: the secret as the Data stack made it, read by a warm container.
    secret = new VersionedSecret();
    mockSecretsManager();
    const first = secret.put(OLD);
    freshContainer();
    expect(await viaCloudFront(OLD)).toBe(200);

    // Act 1: put a new value (the distribution still sends the old one).
    const put = await operator.send(new PutSecretValueCommand({ SecretId: ARN, SecretString: NEW }));
    // Assess: a fresh container accepts both; so does the warm one, which read before the put.
    expect(put.VersionId).toBeDefined();
    expect(await viaCloudFront(OLD)).toBe(200);
    expect(await viaCloudFront(NEW)).toBe(200);
    freshContainer();
    expect(await viaCloudFront(OLD)).toBe(200);
    expect(await viaCloudFront(NEW)).toBe(200);
    expect(await viaCloudFront('a-value-nobody-was-given-000000')).toBe(403);

    // Act 2: the distribution deployed with the new version sends NEW; the old value is retired.
    await operator.send(
      new UpdateSecretVersionStageCommand({
        SecretId: ARN,
        VersionStage: 'AWSPREVIOUS',
        RemoveFromVersionId: first,
      }),
    );
    // Assess: a fresh container takes the new value only.
    freshContainer();
    expect(await viaCloudFront(NEW)).toBe(200);
    expect(await viaCloudFront(OLD)).toBe(403);
  });

  it('a container warm through the whole rotation lets the old value go within its re-read time', async () => {
    // Prepare: warm on the old value, then the whole rotation happens.
    secret = new VersionedSecret();
    mockSecretsManager();
    const first = secret.put(OLD);
    freshContainer();
    vi.useFakeTimers({ toFake: ['Date'] });
    expect(await viaCloudFront(OLD)).toBe(200);
    await operator.send(new PutSecretValueCommand({ SecretId: ARN, SecretString: NEW }));
    // CloudFront changes over: the warm container re-reads on the first value it does not know.
    expect(await viaCloudFront(NEW)).toBe(200);
    await operator.send(
      new UpdateSecretVersionStageCommand({
        SecretId: ARN,
        VersionStage: 'AWSPREVIOUS',
        RemoveFromVersionId: first,
      }),
    );

    // Act: the re-read time passes.
    vi.setSystemTime(Date.now() + SITE_SECRET_TTL_MS + 1);

    // Assess
    expect(await viaCloudFront(NEW)).toBe(200);
    expect(await viaCloudFront(OLD)).toBe(403);
  });

  it('wrong values sent straight to the API cost at most one re-read per interval', async () => {
    // Prepare
    secret = new VersionedSecret();
    mockSecretsManager();
    secret.put(OLD);
    freshContainer();
    vi.useFakeTimers({ toFake: ['Date'] });
    expect(await viaCloudFront(OLD)).toBe(200);
    const before = reads();

    // Act: a burst of guesses, then more after the interval.
    for (let n = 0; n < 5; n++) expect(await viaCloudFront(`guess-${n}-of-the-origin-secret`)).toBe(403);
    const afterBurst = reads();
    vi.setSystemTime(Date.now() + SITE_SECRET_REFRESH_MIN_MS + 1);
    for (let n = 0; n < 5; n++) expect(await viaCloudFront(`guess-${n}-again-of-the-secret`)).toBe(403);

    // Assess: one re-read (current and previous: two calls) per interval, whatever the burst.
    expect(afterBurst - before).toBeLessThanOrEqual(2);
    expect(reads() - afterBurst).toBeLessThanOrEqual(2);
    expect(await viaCloudFront(OLD)).toBe(200);
  });
});
