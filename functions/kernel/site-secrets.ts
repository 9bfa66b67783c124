import { config } from './config.ts';
import { clientDefaults, lazyClient } from './ports/sdk-client.ts';

/**
 * Secrets of the site routes, each resolved once per container: the value itself when set (tests),
 * else the Secrets Manager secret its ARN names (CDK sets the ARN; the value never sits in a template
 * or a function's configuration), else undefined (the local stack: the check it guards is off).
 */
const secretsManager = lazyClient(
  () => import('@aws-sdk/client-secrets-manager'),
  ({ SecretsManagerClient }) => new SecretsManagerClient(clientDefaults()),
);

type SiteSecret = 'origin' | 'turnstile';
const resolved = new Map<SiteSecret, Promise<string | undefined>>();

async function read(arn: string): Promise<string> {
  const [{ GetSecretValueCommand }, client] = await secretsManager();
  const { SecretString } = await client.send(new GetSecretValueCommand({ SecretId: arn }));
  if (!SecretString) throw new Error(`The secret ${arn} holds no string`);
  return SecretString;
}

function source(name: SiteSecret): { value?: string | undefined; arn?: string | undefined } {
  const c = config();
  return name === 'origin'
    ? { value: c.SITE_ORIGIN_SECRET, arn: c.SITE_ORIGIN_SECRET_ARN }
    : { value: c.TURNSTILE_SECRET, arn: c.TURNSTILE_SECRET_ARN };
}

/** The secret, or undefined when none is configured. A failed read is retried on the next call. */
export function siteSecret(name: SiteSecret): Promise<string | undefined> {
  let pending = resolved.get(name);
  if (!pending) {
    const { value, arn } = source(name);
    pending = value !== undefined ? Promise.resolve(value) : arn ? read(arn) : Promise.resolve(undefined);
    pending.catch(() => resolved.delete(name));
    resolved.set(name, pending);
  }
  return pending;
}

/** Tests: forget resolved secrets after changing the environment (and `resetConfig()`). */
export function resetSiteSecrets(): void {
  resolved.clear();
}
