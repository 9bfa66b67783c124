import { S3PhotoStore } from '../../../functions/kernel/ports/photo-store.ts';

/**
 * s3rver's built-in account, the one key the local S3 knows. s3rver itself checks no SigV4
 * signature; in `npm start` a gateway in front of it (local-s3.ts) holds every presigned request to
 * what S3 checks (signature, expiry, signed headers, checksums), and the tests hold presigned PUTs to
 * the same with test/support/strict-s3.ts.
 */
export const LOCAL_S3_CREDENTIALS = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' } as const;

/** The bucket the local stack and the tests create in their local S3. */
export const LOCAL_PHOTO_BUCKET = 'listings-leads-photos';

/**
 * The photo store of the local stack and the tests: the same S3 adapter as Lambda, pointed at the
 * local S3 (s3rver, `S3_ENDPOINT`), with photos served by it at `<endpoint>/<bucket>/<key>`.
 */
export function localPhotoStore(env: NodeJS.ProcessEnv = process.env): S3PhotoStore {
  const endpoint = env.S3_ENDPOINT;
  if (!endpoint) {
    throw new Error(
      'S3_ENDPOINT is not set: the local photo store needs the local S3 (npm start starts one)',
    );
  }
  const bucket = env.PHOTO_BUCKET ?? LOCAL_PHOTO_BUCKET;
  return new S3PhotoStore({
    bucket,
    publicBaseUrl: env.PHOTO_BASE_URL ?? `${endpoint}/${bucket}`,
    client: { endpoint, forcePathStyle: true, credentials: LOCAL_S3_CREDENTIALS },
  });
}

/**
 * The local S3's CORS rule: the console and the Tenants' pages PUT uploads and read photos from
 * their own origins (in AWS the bucket's CORS rule, lib/stacks/data-stack.ts, does the same).
 */
export const LOCAL_S3_CORS = `<CORSConfiguration>
  <CORSRule>
    <AllowedOrigin>*</AllowedOrigin>
    <AllowedMethod>PUT</AllowedMethod>
    <AllowedMethod>GET</AllowedMethod>
    <AllowedMethod>HEAD</AllowedMethod>
    <AllowedHeader>*</AllowedHeader>
    <ExposeHeader>ETag</ExposeHeader>
    <MaxAgeSeconds>3000</MaxAgeSeconds>
  </CORSRule>
</CORSConfiguration>`;
