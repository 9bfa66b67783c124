import { timingSafeEqual } from 'node:crypto';
import { config } from './config.ts';
import { logger } from './logger.ts';
import { clientDefaults, lazyClient } from './ports/sdk-client.ts';

/**
 * Secrets of the site routes: the value itself when set (tests), else the Secrets Manager secret its
 * ARN names (CDK sets the ARN; the value never sits in a template or a function's configuration),
 * else undefined (the local stack: the check it guards is off).
 *
 * A container keeps what it read for {@link SITE_SECRET_TTL_MS}, then reads again, so a value put
 * by an operator reaches warm containers too. A caller that meets a value it does not know (a
 * header CloudFront sends after a rotation, a key Cloudflare refuses) may ask for a re-read at once
 * ({@link refreshSiteSecret}), at most once per {@link SITE_SECRET_REFRESH_MIN_MS}, so that requests
 * with made-up values cannot turn into a Secrets Manager call each.
 *
 * The origin secret is read with its previous value (the version labelled AWSPREVIOUS, which
 * Secrets Manager gives the value a PutSecretValue replaced): CloudFront keeps sending the value
 * it was deployed with until the Site stack is deployed again, and both are accepted meanwhile.
 * Removing the AWSPREVIOUS label ends the rotation (docs/operations.md, "Rotate the secrets").
 */
const secretsManager = lazyClient(
  () => import('@aws-sdk/client-secrets-manager'),
  ({ SecretsManagerClient }) => new SecretsManagerClient(clientDefaults()),
);

/** How long a container keeps a secret before reading it again. */
export const SITE_SECRET_TTL_MS = 5 * 60_000;
/** The least time between two reads of one secret, however many unknown values arrive. */
export const SITE_SECRET_REFRESH_MIN_MS = 30_000;

type SiteSecret = 'origin' | 'turnstile';

/** A secret's values: the current one, and for the origin secret the previous one while it is labelled. */
export interface SiteSecretValues {
  current: string;
  previous?: string | undefined;
}

interface Held {
  values: Promise<SiteSecretValues | undefined>;
  readAt: number;
}

const held = new Map<SiteSecret, Held>();
/** When {@link refreshSiteSecret} last read each secret. */
const refreshedAt = new Map<SiteSecret, number>();

async function readStage(arn: string, stage: 'AWSCURRENT' | 'AWSPREVIOUS'): Promise<string | undefined> {
  const [{ GetSecretValueCommand }, client] = await secretsManager();
  try {
    const { SecretString } = await client.send(
      new GetSecretValueCommand({ SecretId: arn, VersionStage: stage }),
    );
    if (!SecretString) throw new Error(`The secret ${arn} holds no string (${stage})`);
    return SecretString;
  } catch (error) {
    // No version carries the label: no rotation under way.
    if (stage === 'AWSPREVIOUS' && (error as { name?: string }).name === 'ResourceNotFoundException') {
      return undefined;
    }
    throw error;
  }
}

function source(name: SiteSecret): { value?: string | undefined; arn?: string | undefined } {
  const c = config();
  return name === 'origin'
    ? { value: c.SITE_ORIGIN_SECRET, arn: c.SITE_ORIGIN_SECRET_ARN }
    : { value: c.TURNSTILE_SECRET, arn: c.TURNSTILE_SECRET_ARN };
}

async function load(name: SiteSecret): Promise<SiteSecretValues | undefined> {
  const { value, arn } = source(name);
  if (value !== undefined) return { current: value };
  if (!arn) return undefined;
  if (name !== 'origin') return { current: (await readStage(arn, 'AWSCURRENT')) as string };
  const [current, previous] = await Promise.all([
    readStage(arn, 'AWSCURRENT'),
    readStage(arn, 'AWSPREVIOUS'),
  ]);
  return { current: current as string, ...(previous !== undefined ? { previous } : {}) };
}

/**
 * Reads the secret again unless the held values are younger than `maxAgeMs`. A failed re-read
 * keeps the values held before it (logged) until the next re-read; a failed first read throws, and
 * the next call reads again.
 */
function valuesNoOlderThan(name: SiteSecret, maxAgeMs: number): Promise<SiteSecretValues | undefined> {
  const before = held.get(name);
  const now = Date.now();
  if (before && now - before.readAt < maxAgeMs) return before.values;
  const reading = load(name);
  const values = before
    ? reading.catch(async (error: unknown) => {
        logger.warn('site secret re-read failed: keeping the values read before', {
          secret: name,
          error: (error as Error).name,
        });
        return before.values;
      })
    : reading;
  const entry: Held = { values, readAt: now };
  held.set(name, entry);
  values.catch(() => {
    if (held.get(name) === entry) held.delete(name);
  });
  return values;
}

/** The secret's values, or undefined when none is configured. A failed first read is retried on the next call. */
export function siteSecretValues(name: SiteSecret): Promise<SiteSecretValues | undefined> {
  return valuesNoOlderThan(name, SITE_SECRET_TTL_MS);
}

/** The secret's current value, or undefined when none is configured. */
export async function siteSecret(name: SiteSecret): Promise<string | undefined> {
  return (await siteSecretValues(name))?.current;
}

/**
 * Reads the secret again now, unless an earlier call did less than {@link SITE_SECRET_REFRESH_MIN_MS}
 * ago (then the values held, or being read): for a caller that met a value the held ones do not
 * explain.
 */
export function refreshSiteSecret(name: SiteSecret): Promise<SiteSecretValues | undefined> {
  const now = Date.now();
  const last = refreshedAt.get(name);
  if (last !== undefined && now - last < SITE_SECRET_REFRESH_MIN_MS) return siteSecretValues(name);
  refreshedAt.set(name, now);
  return valuesNoOlderThan(name, 0);
}

function same(sent: string, expected: string): boolean {
  const a = Buffer.from(sent);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

function accepts(values: SiteSecretValues, sent: string): boolean {
  // Both compared, whichever matches: the time taken does not tell which one did.
  const current = same(sent, values.current);
  const previous = values.previous !== undefined && same(sent, values.previous);
  return current || previous;
}

/**
 * The origin check of the site routes: `off` without a configured secret (the local stack), else
 * whether `sent` (the request's X-Origin-Verify) is the current or, during a rotation, the previous
 * value. A value neither explains makes one early re-read (rate-limited), for a distribution that
 * already sends a value this container has not read yet.
 */
export async function checkOriginSecret(sent: string | undefined): Promise<'off' | 'accepted' | 'refused'> {
  const values = await siteSecretValues('origin');
  if (values === undefined) return 'off';
  if (sent === undefined) return 'refused';
  if (accepts(values, sent)) return 'accepted';
  const fresh = await refreshSiteSecret('origin');
  return fresh !== undefined && accepts(fresh, sent) ? 'accepted' : 'refused';
}

/** Tests: forget resolved secrets after changing the environment (and `resetConfig()`). */
export function resetSiteSecrets(): void {
  held.clear();
  refreshedAt.clear();
}
