import { config } from './config.ts';
import { clientDefaults, lazyClient } from './ports/sdk-client.ts';

const secretsManager = lazyClient(
  () => import('@aws-sdk/client-secrets-manager'),
  ({ SecretsManagerClient }) => new SecretsManagerClient(clientDefaults()),
);

let secret: string | undefined;
let loading: Promise<string> | undefined;

const MISSING =
  'No cursor secret: set CURSOR_SECRET_ARN (a Secrets Manager secret; CDK sets it) or CURSOR_SECRET (local stack, tests)';

async function readSecret(arn: string): Promise<string> {
  const [{ GetSecretValueCommand }, client] = await secretsManager();
  const { SecretString } = await client.send(new GetSecretValueCommand({ SecretId: arn }));
  if (!SecretString || SecretString.length < 16) {
    throw new Error(`The cursor secret ${arn} must hold a string of at least 16 characters`);
  }
  return SecretString;
}

/**
 * Resolves the key that signs page cursors, once per container: CURSOR_SECRET when set, else the
 * Secrets Manager secret CURSOR_SECRET_ARN names. With neither it throws: there is no default.
 * The operation chain awaits it before any handler that pages, so `cursorSecret()` can stay sync.
 */
export function loadCursorSecret(): Promise<string> {
  if (secret !== undefined) return Promise.resolve(secret);
  loading ??= (async () => {
    const { CURSOR_SECRET, CURSOR_SECRET_ARN } = config();
    if (CURSOR_SECRET) return CURSOR_SECRET;
    if (CURSOR_SECRET_ARN) return readSecret(CURSOR_SECRET_ARN);
    throw new Error(MISSING);
  })().then(
    (value) => {
      secret = value;
      return value;
    },
    (error: unknown) => {
      loading = undefined;
      throw error;
    },
  );
  return loading;
}

/** The cursor key: loaded by `loadCursorSecret`, or CURSOR_SECRET itself. Throws when neither. */
export function cursorSecret(): string {
  secret ??= config().CURSOR_SECRET;
  if (secret === undefined) {
    throw new Error(
      config().CURSOR_SECRET_ARN ? 'The cursor secret was not loaded (loadCursorSecret)' : MISSING,
    );
  }
  return secret;
}

/** Tests: forget the resolved key (after changing the environment and `resetConfig()`). */
export function resetCursorSecret(): void {
  secret = undefined;
  loading = undefined;
}
