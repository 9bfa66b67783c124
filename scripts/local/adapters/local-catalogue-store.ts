import { S3CatalogueStore } from '../../../functions/kernel/ports/catalogue-store.ts';
import { LOCAL_PHOTO_BUCKET, LOCAL_S3_CREDENTIALS } from './local-photo-store.ts';

/**
 * The catalogue store of the local stack and the tests: the same S3 adapter as Lambda, on the local
 * S3 (s3rver, `S3_ENDPOINT`) and its photo bucket under `catalogue/`, as in AWS.
 */
export function localCatalogueStore(env: NodeJS.ProcessEnv = process.env): S3CatalogueStore {
  const endpoint = env.S3_ENDPOINT;
  if (!endpoint) {
    throw new Error(
      'S3_ENDPOINT is not set: the local catalogue store needs the local S3 (npm start starts one)',
    );
  }
  return new S3CatalogueStore({
    bucket: env.CATALOGUE_BUCKET ?? env.PHOTO_BUCKET ?? LOCAL_PHOTO_BUCKET,
    client: { endpoint, forcePathStyle: true, credentials: LOCAL_S3_CREDENTIALS },
  });
}
