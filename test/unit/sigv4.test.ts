import { createHash, createHmac } from 'node:crypto';
import { SignatureV4 } from '@smithy/signature-v4';
import { describe, expect, it } from 'vitest';
import { amzDate, signRequest } from '../../functions/platform/aws/sigv4.ts';

/** AWS's published Signature V4 test suite credentials ("get-vanilla"). */
const SUITE_CREDENTIALS = {
  accessKeyId: 'AKIDEXAMPLE',
  secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY',
};

type SourceData = string | ArrayBuffer | ArrayBufferView;
const bytes = (data: SourceData) =>
  typeof data === 'string'
    ? data
    : ArrayBuffer.isView(data)
      ? new Uint8Array(data.buffer, data.byteOffset, data.byteLength)
      : new Uint8Array(data);

/** node:crypto behind the hash interface the SDK's signer takes. */
class NodeSha256 {
  readonly #hash;
  constructor(secret?: SourceData) {
    this.#hash = secret === undefined ? createHash('sha256') : createHmac('sha256', bytes(secret));
  }
  update(data: SourceData): void {
    this.#hash.update(bytes(data));
  }
  async digest(): Promise<Uint8Array> {
    return new Uint8Array(this.#hash.digest());
  }
}

describe('signRequest', () => {
  it('reproduces the get-vanilla case of the AWS Signature V4 test suite', () => {
    // Act
    const headers = signRequest(
      { method: 'GET', host: 'example.amazonaws.com', path: '/', headers: {}, body: '' },
      SUITE_CREDENTIALS,
      { service: 'service', region: 'us-east-1', now: new Date('2015-08-30T12:36:00Z') },
    );

    // Assess
    expect(headers.authorization).toBe(
      'AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/service/aws4_request, SignedHeaders=host;x-amz-date, Signature=5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31',
    );
    expect(headers['x-amz-date']).toBe('20150830T123600Z');
  });

  it('signs a DynamoDB JSON call with a session token exactly as the SDK signer does', async () => {
    // Arrange
    const credentials = { ...SUITE_CREDENTIALS, sessionToken: 'session/token+with=chars' };
    const now = new Date('2026-11-21T22:34:28.123Z');
    const body = JSON.stringify({ TableName: 'listings-leads', Key: { pk: { S: 't#1' }, sk: { S: 'x' } } });
    const request = {
      method: 'POST',
      host: 'dynamodb.eu-west-1.amazonaws.com',
      path: '/',
      headers: { 'Content-Type': 'application/x-amz-json-1.0', 'X-Amz-Target': 'DynamoDB_20120810.GetItem' },
      body,
    };
    const sdkSigner = new SignatureV4({
      credentials,
      region: 'eu-west-1',
      service: 'dynamodb',
      sha256: NodeSha256,
      applyChecksum: false,
    });

    // Act
    const ours = signRequest(request, credentials, { service: 'dynamodb', region: 'eu-west-1', now });
    const sdk = await sdkSigner.sign(
      {
        method: 'POST',
        protocol: 'https:',
        hostname: request.host,
        path: '/',
        query: {},
        headers: { ...request.headers, host: request.host },
        body,
      },
      { signingDate: now },
    );

    // Assess
    expect(ours.authorization).toBe(sdk.headers.authorization);
    expect(ours['x-amz-security-token']).toBe(credentials.sessionToken);
    expect(ours['x-amz-target']).toBe('DynamoDB_20120810.GetItem');
  });

  it('signs a path with an encoded model id (Bedrock) exactly as the SDK signer does', async () => {
    // Arrange
    const now = new Date('2026-11-21T23:50:00Z');
    const path = `/model/${encodeURIComponent('amazon.nova-lite-v1:0')}/converse`;
    const host = 'bedrock-runtime.eu-west-1.amazonaws.com';
    const headers = { 'content-type': 'application/json' };
    const body = '{"messages":[]}';
    const sdkSigner = new SignatureV4({
      credentials: SUITE_CREDENTIALS,
      region: 'eu-west-1',
      service: 'bedrock',
      sha256: NodeSha256,
      applyChecksum: false,
    });

    // Act
    const ours = signRequest({ method: 'POST', host, path, headers, body }, SUITE_CREDENTIALS, {
      service: 'bedrock',
      region: 'eu-west-1',
      now,
    });
    const sdk = await sdkSigner.sign(
      {
        method: 'POST',
        protocol: 'https:',
        hostname: host,
        path,
        query: {},
        headers: { ...headers, host },
        body,
      },
      { signingDate: now },
    );

    // Assess
    expect(path).toBe('/model/amazon.nova-lite-v1%3A0/converse');
    expect(ours.authorization).toBe(sdk.headers.authorization);
  });

  it('gives a different signature for a different body', () => {
    // Arrange
    const scope = { service: 'sqs', region: 'us-east-1', now: new Date('2026-01-01T00:00:00Z') };
    const base = { method: 'POST', host: 'sqs.us-east-1.amazonaws.com', path: '/', headers: {} };

    // Act
    const a = signRequest({ ...base, body: '{"a":1}' }, SUITE_CREDENTIALS, scope);
    const b = signRequest({ ...base, body: '{"a":2}' }, SUITE_CREDENTIALS, scope);

    // Assess
    expect(a.authorization).not.toBe(b.authorization);
  });
});

describe('amzDate', () => {
  it('formats the signing time as yyyymmddThhmmssZ without milliseconds', () => {
    expect(amzDate(new Date('2026-11-21T22:34:28.999Z'))).toBe('20261121T223428Z');
  });
});
