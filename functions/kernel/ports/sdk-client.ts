import { config } from '../config.ts';

/**
 * One SDK client per container, created on first use from a module loaded with a dynamic import:
 * a function that never sends never evaluates the client's code. `load` must be a literal
 * `import('@aws-sdk/client-…')` so that the bundler still bundles it.
 */
export function lazyClient<M, C>(load: () => Promise<M>, create: (module: M) => C): () => Promise<[M, C]> {
  let loading: Promise<[M, C]> | undefined;
  return () => {
    loading ??= load().then(
      (module) => [module, create(module)],
      (error: unknown) => {
        loading = undefined;
        throw error;
      },
    );
    return loading;
  };
}

/**
 * What every client shares: the configured region and the SDK's standard retry mode (three
 * attempts, exponential backoff with jitter, a retry quota). Endpoints, credentials, the user
 * agent and `AWS_ENDPOINT_URL_*` overrides are the SDK's own.
 */
export function clientDefaults() {
  return { region: config().AWS_REGION, retryMode: 'standard', maxAttempts: 3 } as const;
}
