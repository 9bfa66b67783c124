import { fromEnv } from '@aws-sdk/credential-provider-env';

/**
 * Substituted for `@aws-sdk/credential-provider-node` when bundling Lambdas (lib/bundling.ts).
 * In Lambda the execution role's credentials are always in the environment, so the SDK's full
 * default chain (SSO, INI files, STS web identity, IMDS: ~100 KB of bundle and load time) is dead
 * weight there. Locally the real chain is used.
 */
export const defaultProvider = () => fromEnv();
