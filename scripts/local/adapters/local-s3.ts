import { createHash, createHmac, randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, request, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { crc32 } from 'node:zlib';
import { SignatureV4 } from '@smithy/signature-v4';
import S3rver from 's3rver';
import { LOCAL_PHOTO_BUCKET, LOCAL_S3_CORS, LOCAL_S3_CREDENTIALS } from './local-photo-store.ts';

/**
 * The local S3 of `npm start`: s3rver keeps the bucket under DATA_DIR/s3, behind a gateway that
 * holds every presigned request (SigV4 query authentication, `X-Amz-Signature` in the URL) to what
 * S3 holds it to before it reaches s3rver, which checks no signature:
 *
 * - the query authentication parameters (400 AuthorizationQueryParametersError), the expiry
 *   (403 AccessDenied "Request has expired"), the access key (403 InvalidAccessKeyId);
 * - `x-amz-*` headers sent but not signed (403 AccessDenied, "There were headers present in the
 *   request which were not signed");
 * - the signature, over the request as it arrives (method, path, query, the signed headers with the
 *   values sent: another Content-Type or size than the one signed changes it), recomputed with the
 *   AWS SDK's own SigV4 signer (`@smithy/signature-v4`) for the local credentials
 *   (403 SignatureDoesNotMatch);
 * - a PUT without Content-Length (411 MissingContentLength); a checksum sent with the body
 *   (`x-amz-checksum-crc32|sha1|sha256`, in the URL or a header) or a payload hash other than
 *   UNSIGNED-PAYLOAD that the body does not match (400 BadDigest, XAmzContentSHA256Mismatch).
 *
 * Everything else (the SDK's header-signed calls of the functions, public reads of photos, CORS
 * preflights) goes to s3rver as sent. Refusals are S3's error documents, with the CORS header the
 * bucket's rule gives, so a page can read them.
 */
export interface LocalS3 {
  /** Where clients reach it: `http://127.0.0.1:<port>` (S3_ENDPOINT). */
  endpoint: string;
  close: () => Promise<void>;
}

export interface LocalS3Options {
  /** Where s3rver keeps the bucket. */
  directory: string;
  /** The gateway's port. @default - a free one */
  port?: number;
  /** @default LOCAL_PHOTO_BUCKET */
  bucket?: string;
}

/** S3's longest presigned URL lifetime: 7 days. */
export const MAX_EXPIRES_SECONDS = 604_800;

/**
 * The query parameters of SigV4 query authentication. This and the other rules exported below are
 * the ones the tests' strict S3 (test/support/strict-s3.ts) judges presigned PUTs by as well.
 */
export const AUTH_PARAMS = [
  'X-Amz-Algorithm',
  'X-Amz-Credential',
  'X-Amz-Date',
  'X-Amz-Expires',
  'X-Amz-SignedHeaders',
  'X-Amz-Signature',
] as const;

/**
 * SHA-256 and its HMAC over node:crypto, in the shape the SDK's signer takes (what `@smithy/hash-node`
 * is): the local gateway and the tests' strict S3 (test/support/strict-s3.ts) both sign with it.
 */
export class NodeSha256 {
  readonly #hash;
  constructor(secret?: string | ArrayBuffer | ArrayBufferView) {
    this.#hash =
      secret === undefined
        ? createHash('sha256')
        : createHmac('sha256', typeof secret === 'string' ? secret : bytes(secret));
  }
  update(data: string | ArrayBuffer | ArrayBufferView): void {
    this.#hash.update(typeof data === 'string' ? data : bytes(data));
  }
  async digest(): Promise<Uint8Array> {
    return new Uint8Array(this.#hash.digest());
  }
}

function bytes(data: ArrayBuffer | ArrayBufferView): Buffer {
  return ArrayBuffer.isView(data)
    ? Buffer.from(data.buffer, data.byteOffset, data.byteLength)
    : Buffer.from(data);
}

/**
 * The flexible checksums S3 verifies, by header (or query parameter) name, their values base64: how
 * each is computed, or undefined for the two not computed here (CRC32C, CRC64NVME).
 */
export const CHECKSUMS: Readonly<Record<string, ((body: Uint8Array) => string) | undefined>> = {
  'x-amz-checksum-crc32': (body) => {
    const value = Buffer.alloc(4);
    value.writeUInt32BE(crc32(body));
    return value.toString('base64');
  },
  'x-amz-checksum-sha1': (body) => createHash('sha1').update(body).digest('base64'),
  'x-amz-checksum-sha256': (body) => createHash('sha256').update(body).digest('base64'),
  'x-amz-checksum-crc32c': undefined,
  'x-amz-checksum-crc64nvme': undefined,
};

/** What S3 answers instead of serving the request. */
export interface Refusal {
  status: number;
  code: string;
  message: string;
  /** More elements of S3's error document (ServerTime, HeadersNotSigned…). */
  details?: Record<string, string>;
}

const refusal = (
  status: number,
  code: string,
  message: string,
  details?: Record<string, string>,
): Refusal => ({
  status,
  code,
  message,
  ...(details ? { details } : {}),
});

/** `20261126T081838Z` → a Date (SigV4's basic ISO 8601 form). */
function parseAmzDate(value: string): Date | undefined {
  const m = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(value);
  return m ? new Date(`${m[1]}-${m[2]}-${m[3]}T${m[4]}:${m[5]}:${m[6]}Z`) : undefined;
}

/** Who signed a presigned URL, where and when, as its query authentication says. */
export interface CredentialScope {
  accessKeyId: string;
  /** `yyyymmdd`, the day of X-Amz-Date. */
  scopeDate: string;
  region: string;
  signedAt: Date;
}

/**
 * The credential scope of a presigned URL whose query authentication parameters are all there:
 * undefined unless the algorithm is AWS4-HMAC-SHA256 and X-Amz-Credential reads
 * `<key>/<yyyymmdd of X-Amz-Date>/<region>/s3/aws4_request` (S3: 400 AuthorizationQueryParametersError).
 */
export function credentialScopeOf(query: URLSearchParams): CredentialScope | undefined {
  const amzDate = query.get('X-Amz-Date') ?? '';
  const [accessKeyId, scopeDate, region, service, terminator, ...extra] = (
    query.get('X-Amz-Credential') ?? ''
  ).split('/');
  const signedAt = parseAmzDate(amzDate);
  if (
    query.get('X-Amz-Algorithm') !== 'AWS4-HMAC-SHA256' ||
    !accessKeyId ||
    !region ||
    service !== 's3' ||
    terminator !== 'aws4_request' ||
    extra.length > 0 ||
    !signedAt ||
    scopeDate !== amzDate.slice(0, 8)
  ) {
    return undefined;
  }
  return { accessKeyId, scopeDate, region, signedAt };
}

const s3Time = (date: Date) => date.toISOString().replace(/\.\d{3}Z$/, 'Z');

function headerValue(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value.join(',') : value;
}

/**
 * Judges a presigned request from its URL and headers, as S3 does before it reads the body;
 * undefined when S3 would go on to take it.
 */
async function judgePresigned(req: IncomingMessage, url: URL, now: Date): Promise<Refusal | undefined> {
  const query = url.searchParams;
  if (req.method === 'PUT' && req.headers['content-length'] === undefined) {
    return refusal(411, 'MissingContentLength', 'You must provide the Content-Length HTTP header.');
  }
  const missing = AUTH_PARAMS.filter((name) => !query.get(name));
  if (missing.length > 0) {
    return refusal(
      400,
      'AuthorizationQueryParametersError',
      `Query-string authentication version 4 requires the ${missing.join(', ')} parameters.`,
    );
  }
  const scope = credentialScopeOf(query);
  const expires = Number(query.get('X-Amz-Expires'));
  if (!scope) {
    return refusal(
      400,
      'AuthorizationQueryParametersError',
      'X-Amz-Algorithm must be AWS4-HMAC-SHA256 and X-Amz-Credential <key>/<yyyymmdd of X-Amz-Date>/<region>/s3/aws4_request.',
    );
  }
  const { accessKeyId, region, signedAt } = scope;
  if (!Number.isInteger(expires) || expires < 0 || expires > MAX_EXPIRES_SECONDS) {
    return refusal(
      400,
      'AuthorizationQueryParametersError',
      `X-Amz-Expires must be less than a week (in seconds) that is ${MAX_EXPIRES_SECONDS}`,
    );
  }
  const expiresAt = new Date(signedAt.getTime() + expires * 1000);
  if (now.getTime() > expiresAt.getTime()) {
    return refusal(403, 'AccessDenied', 'Request has expired', {
      'X-Amz-Expires': String(expires),
      Expires: s3Time(expiresAt),
      ServerTime: s3Time(now),
    });
  }
  if (accessKeyId !== LOCAL_S3_CREDENTIALS.accessKeyId) {
    return refusal(
      403,
      'InvalidAccessKeyId',
      'The AWS Access Key Id you provided does not exist in our records.',
      { AWSAccessKeyId: accessKeyId },
    );
  }
  const signedHeaders = (query.get('X-Amz-SignedHeaders') as string).split(';');
  const unsigned = Object.keys(req.headers).filter(
    (h) => h.startsWith('x-amz-') && !signedHeaders.includes(h),
  );
  if (unsigned.length > 0) {
    return refusal(403, 'AccessDenied', 'There were headers present in the request which were not signed', {
      HeadersNotSigned: unsigned.join(', '),
    });
  }
  const provided = query.get('X-Amz-Signature') as string;
  const expected = await signatureOf(req, url, { signedAt, expires, region, signedHeaders });
  if (expected !== provided) {
    return refusal(
      403,
      'SignatureDoesNotMatch',
      'The request signature we calculated does not match the signature you provided. Check your key and signing method.',
      { AWSAccessKeyId: accessKeyId, SignatureProvided: provided, SignedHeaders: signedHeaders.join(';') },
    );
  }
  return undefined;
}

/**
 * The signature S3 computes for the request as it arrived: the SDK's signer presigns the same
 * method, path, query (without the signature) and signed headers with the values sent, at the
 * URL's date and lifetime, with the local credentials.
 */
async function signatureOf(
  req: IncomingMessage,
  url: URL,
  signing: { signedAt: Date; expires: number; region: string; signedHeaders: string[] },
): Promise<string | undefined> {
  const query: Record<string, string | string[]> = {};
  for (const name of new Set(url.searchParams.keys())) {
    if ((AUTH_PARAMS as readonly string[]).includes(name)) continue;
    const values = url.searchParams.getAll(name);
    query[name] = values.length === 1 ? (values[0] as string) : values;
  }
  const headers: Record<string, string> = {};
  for (const name of signing.signedHeaders) {
    const value = headerValue(req, name);
    if (value !== undefined) headers[name] = value;
  }
  // The payload's hash in the canonical request: a presigned URL's is UNSIGNED-PAYLOAD unless it
  // names one (X-Amz-Content-Sha256), or a signed header does.
  const payloadParam = [...url.searchParams.entries()].find(
    ([n]) => n.toLowerCase() === 'x-amz-content-sha256',
  );
  const payloadHash = headers['x-amz-content-sha256'] ?? payloadParam?.[1] ?? 'UNSIGNED-PAYLOAD';
  const payloadHeader: Record<string, string> = signing.signedHeaders.includes('x-amz-content-sha256')
    ? {}
    : { 'x-amz-content-sha256': payloadHash };
  const signer = new SignatureV4({
    credentials: LOCAL_S3_CREDENTIALS,
    region: signing.region,
    service: 's3',
    sha256: NodeSha256,
    uriEscapePath: false,
    applyChecksum: false,
  });
  const host = new URL(`http://${headerValue(req, 'host') ?? url.host}`);
  const presigned = await signer.presign(
    {
      method: req.method ?? 'GET',
      protocol: 'http:',
      hostname: host.hostname,
      ...(host.port ? { port: Number(host.port) } : {}),
      path: url.pathname,
      query,
      headers: { ...headers, ...payloadHeader },
    },
    {
      signingDate: signing.signedAt,
      expiresIn: signing.expires,
      signableHeaders: new Set(signing.signedHeaders),
      unsignableHeaders: new Set(['x-amz-content-sha256']),
      unhoistableHeaders: new Set(signing.signedHeaders.concat('x-amz-content-sha256')),
    },
  );
  // Another list of signed headers (one the client did not send) is another signature too.
  const signed = presigned.query ?? {};
  if (signed['X-Amz-SignedHeaders'] !== signing.signedHeaders.join(';')) return undefined;
  const signature = signed['X-Amz-Signature'];
  return typeof signature === 'string' ? signature : undefined;
}

/** What S3 checks of the body itself: a payload hash or a checksum the request gives. */
function judgeBody(req: IncomingMessage, url: URL, body: Buffer): Refusal | undefined {
  const given = new Map<string, string>();
  for (const [name, value] of url.searchParams.entries()) given.set(name.toLowerCase(), value);
  for (const name of Object.keys(req.headers)) given.set(name, headerValue(req, name) ?? '');
  return bodyRefusal(given, body);
}

/**
 * What S3 checks of a presigned request's body, from what the request gives (`given`: its query
 * parameters and headers, by lower-case name): a payload hash other than UNSIGNED-PAYLOAD must be
 * the body's SHA-256, at most one flexible checksum, the one x-amz-sdk-checksum-algorithm names,
 * with the body's value. A CRC32C or CRC64NVME is not computed: S3 checks it, this lets it through.
 */
export function bodyRefusal(given: ReadonlyMap<string, string>, body: Uint8Array): Refusal | undefined {
  const payloadHash = given.get('x-amz-content-sha256');
  if (
    payloadHash !== undefined &&
    payloadHash !== 'UNSIGNED-PAYLOAD' &&
    payloadHash !== createHash('sha256').update(body).digest('hex')
  ) {
    return refusal(
      400,
      'XAmzContentSHA256Mismatch',
      "The provided 'x-amz-content-sha256' header does not match what was computed.",
    );
  }
  const checksums = [...given.keys()].filter((name) => Object.hasOwn(CHECKSUMS, name));
  if (checksums.length > 1)
    return refusal(400, 'InvalidRequest', 'Expecting a single x-amz-checksum- header');
  const algorithm = given.get('x-amz-sdk-checksum-algorithm');
  if (algorithm && checksums[0] !== `x-amz-checksum-${algorithm.toLowerCase()}`) {
    return refusal(
      400,
      'InvalidRequest',
      'x-amz-sdk-checksum-algorithm specified, but no corresponding x-amz-checksum-* or x-amz-trailer headers were found.',
    );
  }
  for (const name of checksums) {
    const compute = CHECKSUMS[name];
    if (compute && compute(body) !== given.get(name)) {
      const kind = name.slice('x-amz-checksum-'.length).toUpperCase();
      return refusal(400, 'BadDigest', `The ${kind} you specified did not match the calculated checksum.`);
    }
  }
  return undefined;
}

function needsBody(req: IncomingMessage, url: URL): boolean {
  const names = [...url.searchParams.keys(), ...Object.keys(req.headers)].map((n) => n.toLowerCase());
  return names.some(
    (n) =>
      n.startsWith('x-amz-checksum-') ||
      n === 'x-amz-sdk-checksum-algorithm' ||
      (n === 'x-amz-content-sha256' &&
        (url.searchParams.get('X-Amz-Content-Sha256') ?? headerValue(req, n)) !== 'UNSIGNED-PAYLOAD'),
  );
}

const escapeXml = (value: string) =>
  value.replace(
    /[<>&'"]/g,
    (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', "'": '&apos;', '"': '&quot;' })[c] as string,
  );

function refuse(req: IncomingMessage, res: ServerResponse, refused: Refusal): void {
  const requestId = randomUUID().replace(/-/g, '').slice(0, 16).toUpperCase();
  const details = Object.entries(refused.details ?? {})
    .map(([name, value]) => `<${name}>${escapeXml(value)}</${name}>`)
    .join('');
  const xml =
    '<?xml version="1.0" encoding="UTF-8"?>\n' +
    `<Error><Code>${refused.code}</Code><Message>${escapeXml(refused.message)}</Message>${details}` +
    `<RequestId>${requestId}</RequestId><HostId>local</HostId></Error>`;
  res.writeHead(refused.status, {
    'content-type': 'application/xml',
    'content-length': Buffer.byteLength(xml),
    'x-amz-request-id': requestId,
    // The bucket's CORS rule (LOCAL_S3_CORS) allows every origin: a page reads the refusal.
    ...(req.headers.origin ? { 'access-control-allow-origin': '*' } : {}),
  });
  res.end(xml);
}

/** Sends the request on to s3rver as it came (its body from `body`, or streamed). */
function forward(req: IncomingMessage, res: ServerResponse, target: number, body?: Buffer): void {
  const upstream = request(
    { host: '127.0.0.1', port: target, method: req.method, path: req.url, headers: req.headers },
    (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    },
  );
  upstream.on('error', (error) => {
    if (!res.headersSent) res.writeHead(502, { 'content-type': 'text/plain' });
    res.end(`local S3 unreachable: ${error.message}`);
  });
  if (body) upstream.end(body);
  else req.pipe(upstream);
}

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

async function handle(req: IncomingMessage, res: ServerResponse, target: number): Promise<void> {
  const url = new URL(req.url ?? '/', 'http://local-s3');
  // A browser's CORS preflight carries the presigned URL too, unsigned: s3rver answers it by the rule.
  const presigned = url.searchParams.has('X-Amz-Signature') || url.searchParams.has('X-Amz-Credential');
  if (!presigned || req.method === 'OPTIONS') {
    forward(req, res, target);
    return;
  }
  const refused = await judgePresigned(req, url, new Date());
  if (refused) {
    refuse(req, res, refused);
    return;
  }
  if (!needsBody(req, url)) {
    forward(req, res, target);
    return;
  }
  const body = await readBody(req);
  const badBody = judgeBody(req, url, body);
  if (badBody) refuse(req, res, badBody);
  else forward(req, res, target, body);
}

function close(server: Server): Promise<void> {
  server.closeAllConnections();
  return new Promise((resolve) => server.close(() => resolve()));
}

/** Starts s3rver on a port of its own and the gateway in front of it; the bucket exists, with its CORS rule. */
export async function startLocalS3(options: LocalS3Options): Promise<LocalS3> {
  const s3 = new S3rver({
    port: 0,
    address: '127.0.0.1',
    directory: options.directory,
    silent: true,
    configureBuckets: [{ name: options.bucket ?? LOCAL_PHOTO_BUCKET, configs: [LOCAL_S3_CORS] }],
  });
  const { port: target } = await s3.run();
  const gateway = createServer((req, res) => {
    handle(req, res, target).catch((error: unknown) => {
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain' });
      res.end(`local S3 gateway failed: ${(error as Error).message}`);
    });
  });
  await new Promise<void>((resolve, reject) => {
    gateway.once('error', reject);
    gateway.listen(options.port ?? 0, '127.0.0.1', () => resolve());
  });
  const { port } = gateway.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    close: async () => {
      await close(gateway);
      await s3.close().catch(() => undefined);
    },
  };
}
