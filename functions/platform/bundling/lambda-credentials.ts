import type { AwsCredentials } from '../aws/sigv4.ts';

/**
 * Substituted for `@aws-sdk/credential-provider-node` when bundling Lambdas (lib/bundling.ts).
 * In Lambda the execution role's credentials are always in the environment, so the SDK's full
 * default chain (SSO, INI files, STS web identity, IMDS: ~100 KB of bundle and load time) is dead
 * weight there. Locally and in the admin CLI the real chain is used.
 */
export const defaultProvider = () => async (): Promise<AwsCredentials> => {
  const { AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN } = process.env;
  if (!AWS_ACCESS_KEY_ID || !AWS_SECRET_ACCESS_KEY) {
    throw new Error('No AWS credentials in the environment (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY)');
  }
  return {
    accessKeyId: AWS_ACCESS_KEY_ID,
    secretAccessKey: AWS_SECRET_ACCESS_KEY,
    ...(AWS_SESSION_TOKEN ? { sessionToken: AWS_SESSION_TOKEN } : {}),
  };
};
