import { createHash, createHmac } from 'node:crypto';

/** What signs a request: an access key pair and, for temporary credentials, the session token. */
export interface AwsCredentials {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
}

export interface RequestToSign {
  method: string;
  host: string;
  /** The path as sent (encoded), e.g. `/model/amazon.nova-lite-v1%3A0/converse`; no query string. */
  path: string;
  headers: Record<string, string>;
  body: string;
}

export interface SigningScope {
  service: string;
  region: string;
  /** Signing time; the signature is valid for 15 minutes around it. */
  now: Date;
}

const sha256Hex = (data: string) => createHash('sha256').update(data, 'utf8').digest('hex');
const hmac = (key: string | Buffer, data: string) => createHmac('sha256', key).update(data, 'utf8').digest();

/** RFC 3986 encoding: encodeURIComponent leaves ! ' ( ) * as they are, SigV4 wants them encoded. */
const rfc3986 = (text: string) =>
  encodeURIComponent(text).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

/**
 * The canonical URI of every service but S3: each segment of the (already encoded) path encoded
 * once more, so `/model/amazon.nova-lite-v1%3A0/converse` signs as `…v1%253A0…`.
 */
export function canonicalPath(path: string): string {
  return path.split('/').map(rfc3986).join('/');
}

/** `20261121T223428Z`, the form Signature Version 4 wants. */
export function amzDate(now: Date): string {
  return now
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d{3}/, '');
}

/**
 * AWS Signature Version 4 (docs: "Create a signed AWS API request"), for the JSON APIs the functions
 * call (DynamoDB, SQS, SES). The SDK's signer comes with ~100 KB of client machinery per bundle; this
 * is the algorithm alone. Returns the headers to send: the given ones plus `host`, `x-amz-date`, the
 * session token when there is one, and `authorization`. Checked against AWS's published test vector and the SDK's own signer
 * (test/unit/sigv4.test.ts).
 */
export function signRequest(
  request: RequestToSign,
  credentials: AwsCredentials,
  scope: SigningScope,
): Record<string, string> {
  const date = amzDate(scope.now);
  const payloadHash = sha256Hex(request.body);
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(request.headers)) headers[name.toLowerCase()] = value;
  headers.host = request.host;
  headers['x-amz-date'] = date;
  if (credentials.sessionToken) headers['x-amz-security-token'] = credentials.sessionToken;

  const names = Object.keys(headers).sort();
  const canonicalHeaders = names
    .map((n) => `${n}:${String(headers[n]).trim().replace(/\s+/g, ' ')}\n`)
    .join('');
  const signedHeaders = names.join(';');
  const canonicalRequest = [
    request.method,
    canonicalPath(request.path),
    '',
    canonicalHeaders,
    signedHeaders,
    payloadHash,
  ].join('\n');
  const credentialScope = `${date.slice(0, 8)}/${scope.region}/${scope.service}/aws4_request`;
  const stringToSign = ['AWS4-HMAC-SHA256', date, credentialScope, sha256Hex(canonicalRequest)].join('\n');
  const signingKey = hmac(
    hmac(hmac(hmac(`AWS4${credentials.secretAccessKey}`, date.slice(0, 8)), scope.region), scope.service),
    'aws4_request',
  );
  const signature = createHmac('sha256', signingKey).update(stringToSign, 'utf8').digest('hex');
  headers.authorization = `AWS4-HMAC-SHA256 Credential=${credentials.accessKeyId}/${credentialScope}, SignedHeaders=${signedHeaders}, Signature=${signature}`;
  return headers;
}
