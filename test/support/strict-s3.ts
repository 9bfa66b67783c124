/**
 * S3 as strict as S3 for presigned PUTs. The local stand-in (s3rver) checks no SigV4 signature and no
 * checksum, so a presigned URL that real S3 refuses (with the SDK's default, a CRC32 of an empty
 * body signed into every upload URL) passes locally. This judges a PUT to a presigned URL the way S3
 * documents it does, before the request reaches the stand-in:
 *
 * - the query authentication parameters (SigV4 query auth: algorithm, credential scope, date,
 *   expiry of at most 7 days, signed headers, signature), and expiry against the clock;
 * - `x-amz-*` headers sent but not signed are refused (S3: "There were headers present in the
 *   request which were not signed");
 * - the signature itself: the canonical request is built from what the client actually sends (the
 *   URL, its headers, `host`, the `content-length` of the body) per the SigV4 documentation, and
 *   signed with the SDK's own `@smithy/signature-v4` key derivation for the test credentials, so a
 *   signed header the client does not send, or sends with another value, fails;
 * - flexible checksums: `x-amz-sdk-checksum-algorithm` without its `x-amz-checksum-*` value is an
 *   InvalidRequest, and a `x-amz-checksum-*` (query or header) that is not the body's is BadDigest;
 *   `X-Amz-Content-Sha256` must be UNSIGNED-PAYLOAD or the body's SHA-256.
 *
 * `uploadContractProblems` adds this service's own promise on top (docs/photos.md):
 * Content-Type and Content-Length are signed, every header handed out is signed, and the URL fixes
 * no checksum (the service cannot know the bytes when it mints the URL).
 */
import { createHash } from 'node:crypto';
import { SignatureV4 } from '@smithy/signature-v4';
import {
  AUTH_PARAMS,
  bodyRefusal,
  CHECKSUMS,
  credentialScopeOf,
  MAX_EXPIRES_SECONDS,
  NodeSha256,
} from '../../scripts/local/adapters/local-s3.ts';

export interface S3Credentials {
  accessKeyId: string;
  secretAccessKey: string;
}

/** A PUT as a client sends it to a presigned URL: the URL, the headers it sets, the body. */
export interface PresignedPutRequest {
  url: string;
  headers: Record<string, string>;
  body: Uint8Array;
}

/** What S3 answers instead of storing the object. */
export interface S3Refusal {
  status: number;
  code: string;
  message: string;
}

/** RFC 3986 escaping, as SigV4 canonicalisation requires (encodeURIComponent leaves !'()* alone). */
const escapeUri = (value: string) =>
  encodeURIComponent(value).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

const sha256Hex = (data: string | Uint8Array) => createHash('sha256').update(data).digest('hex');

const refusal = (status: number, code: string, message: string): S3Refusal => ({ status, code, message });

/**
 * What S3 answers a PUT to a presigned URL: undefined when it would store the object, else the
 * error it documents. `credentials` are the ones S3 knows (the test's), `now` S3's clock.
 */
export async function s3RefusalOfPresignedPut(
  request: PresignedPutRequest,
  credentials: S3Credentials,
  now: Date = new Date(),
): Promise<S3Refusal | undefined> {
  const url = new URL(request.url);
  const query = url.searchParams;
  // What goes on the wire: the client's headers, the host of the URL, and the body's length.
  const sent = new Map<string, string>();
  for (const [name, value] of Object.entries(request.headers)) sent.set(name.toLowerCase(), value);
  const declaredLength = sent.get('content-length');
  if (declaredLength !== undefined && Number(declaredLength) !== request.body.length) {
    return refusal(400, 'IncompleteBody', 'The request body is not as long as its Content-Length header');
  }
  sent.set('content-length', String(request.body.length));
  sent.set('host', url.host);

  // 1. Query authentication parameters.
  const missing = AUTH_PARAMS.filter((name) => !query.get(name));
  if (missing.length > 0) {
    return refusal(400, 'AuthorizationQueryParametersError', `Missing ${missing.join(', ')}`);
  }
  const scope = credentialScopeOf(query);
  const expires = Number(query.get('X-Amz-Expires'));
  if (!scope || !Number.isInteger(expires) || expires < 1 || expires > MAX_EXPIRES_SECONDS) {
    return refusal(
      400,
      'AuthorizationQueryParametersError',
      'X-Amz-Algorithm must be AWS4-HMAC-SHA256, X-Amz-Credential <key>/<yyyymmdd of X-Amz-Date>/<region>/s3/aws4_request, X-Amz-Expires 1 to 604800 seconds',
    );
  }
  const { accessKeyId, scopeDate, region, signedAt } = scope;
  if (now.getTime() > signedAt.getTime() + expires * 1000) {
    return refusal(403, 'AccessDenied', 'Request has expired');
  }
  if (accessKeyId !== credentials.accessKeyId) {
    return refusal(
      403,
      'InvalidAccessKeyId',
      'The AWS Access Key Id you provided does not exist in our records',
    );
  }
  const signedHeaders = query.get('X-Amz-SignedHeaders')!.split(';');
  if (
    !signedHeaders.includes('host') ||
    signedHeaders.some((h, n) => h !== h.toLowerCase() || (n > 0 && h <= signedHeaders[n - 1]!))
  ) {
    return refusal(
      400,
      'AuthorizationQueryParametersError',
      'X-Amz-SignedHeaders must list host, in lower case and sorted',
    );
  }

  // 2. Every x-amz-* header sent must be signed.
  const unsignedAmz = [...sent.keys()].filter((h) => h.startsWith('x-amz-') && !signedHeaders.includes(h));
  if (unsignedAmz.length > 0) {
    return refusal(
      403,
      'AccessDenied',
      `There were headers present in the request which were not signed: ${unsignedAmz.join(', ')}`,
    );
  }

  // 3. The signature, over the canonical request of what is actually sent.
  const canonicalQuery = [...query.entries()]
    .filter(([name]) => name !== 'X-Amz-Signature')
    .map(([name, value]) => [escapeUri(name), escapeUri(value)] as const)
    .sort(([a, av], [b, bv]) => (a < b ? -1 : a > b ? 1 : av < bv ? -1 : av > bv ? 1 : 0))
    .map(([name, value]) => `${name}=${value}`)
    .join('&');
  const canonicalHeaders = signedHeaders
    .map((name) => `${name}:${(sent.get(name) ?? '').trim().replace(/\s+/g, ' ')}\n`)
    .join('');
  const payloadHash = query.get('X-Amz-Content-Sha256') ?? 'UNSIGNED-PAYLOAD';
  const canonicalRequest = [
    'PUT',
    url.pathname,
    canonicalQuery,
    canonicalHeaders,
    signedHeaders.join(';'),
    payloadHash,
  ].join('\n');
  const credentialScope = `${scopeDate}/${region}/s3/aws4_request`;
  const stringToSign = [
    'AWS4-HMAC-SHA256',
    query.get('X-Amz-Date'),
    credentialScope,
    sha256Hex(canonicalRequest),
  ].join('\n');
  const signer = new SignatureV4({
    credentials,
    region,
    service: 's3',
    sha256: NodeSha256,
    uriEscapePath: false,
  });
  const expected = await signer.sign(stringToSign, {
    signingDate: signedAt,
    signingRegion: region,
    signingService: 's3',
  });
  if (expected !== query.get('X-Amz-Signature')) {
    return refusal(
      403,
      'SignatureDoesNotMatch',
      `The request signature we calculated does not match the signature you provided. Canonical request:\n${canonicalRequest}`,
    );
  }

  // 4. What S3 checks of the body: the payload hash, and any flexible checksum (the local S3's rules).
  const given = new Map(sent);
  for (const [name, value] of query.entries()) {
    if (name.toLowerCase().startsWith('x-amz-')) given.set(name.toLowerCase(), value);
  }
  const badBody = bodyRefusal(given, request.body);
  if (badBody) return badBody;
  // S3 verifies a CRC32C or CRC64NVME too; this checker cannot compute them, so it refuses rather
  // than passes them.
  const unverified = [...given.keys()].find((name) => Object.hasOwn(CHECKSUMS, name) && !CHECKSUMS[name]);
  if (unverified) return refusal(400, 'InvalidRequest', `This checker cannot verify ${unverified}`);
  return undefined;
}

/** A presigned upload as the API hands it out (docs/photos.md). */
export interface MintedUpload {
  url: string;
  method: string;
  headers: Record<string, string>;
}

/**
 * This service's promise about a minted upload, beyond what S3 checks: S3 refuses another type or
 * size (both signed), every header handed out is signed (an unsigned one would be a header the
 * client sends that S3 does not hold it to), and the URL fixes no checksum of bytes not yet known.
 */
export function uploadContractProblems(upload: MintedUpload): string[] {
  const problems: string[] = [];
  const url = new URL(upload.url);
  const signed = (url.searchParams.get('X-Amz-SignedHeaders') ?? '').split(';');
  if (upload.method !== 'PUT') problems.push(`method ${upload.method}, not PUT`);
  for (const required of ['host', 'content-type', 'content-length']) {
    if (!signed.includes(required)) problems.push(`${required} is not signed`);
  }
  for (const name of Object.keys(upload.headers)) {
    if (!signed.includes(name.toLowerCase())) problems.push(`header ${name} is handed out but not signed`);
  }
  for (const name of signed) {
    if (name !== 'host' && !Object.keys(upload.headers).some((h) => h.toLowerCase() === name)) {
      problems.push(`signed header ${name} is not among the headers handed out`);
    }
  }
  for (const name of url.searchParams.keys()) {
    if (/^x-amz-(checksum-|sdk-checksum-algorithm)/i.test(name)) {
      problems.push(`the URL fixes ${name}, a checksum of a file not yet uploaded`);
    }
  }
  return problems;
}

type Send = (
  url: string,
  init: { method: string; headers: Record<string, string>; body: Uint8Array },
) => Promise<Response>;

/**
 * A fetch for presigned PUTs that answers as S3 would: a refused request gets S3's error status
 * and XML body and never reaches the local stand-in; an accepted one is sent with `send`.
 */
export function strictS3Put(credentials: S3Credentials, send: Send) {
  return async (
    url: string,
    init: { method: 'PUT'; headers: Record<string, string>; body: Uint8Array },
  ): Promise<Response> => {
    const refused = await s3RefusalOfPresignedPut(
      { url, headers: init.headers, body: init.body },
      credentials,
    );
    if (refused) {
      const xml = `<?xml version="1.0" encoding="UTF-8"?><Error><Code>${refused.code}</Code><Message>${refused.message}</Message></Error>`;
      return new Response(xml, { status: refused.status, headers: { 'content-type': 'application/xml' } });
    }
    // The HTTP client sets Content-Length from the body (fetch will not take it by hand); the
    // checker above has held the declared one to the body's length.
    const headers = Object.fromEntries(
      Object.entries(init.headers).filter(([name]) => name.toLowerCase() !== 'content-length'),
    );
    return send(url, { ...init, headers });
  };
}
