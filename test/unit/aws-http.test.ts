import { afterEach, describe, expect, it } from 'vitest';
import {
  type AwsCall,
  AwsServiceError,
  type CredentialSource,
  callAws,
  localCredentials,
} from '../../functions/platform/aws/aws-http.ts';
import { awsStandIn, closeStandIns, hangUp, json, type Reply } from '../support/aws-stand-in.ts';
import { rejection } from '../support/bedrock.ts';

afterEach(closeStandIns);

/** A DynamoDB-style JSON-RPC call to `endpoint`. */
function dynamoCall(endpoint: string, overrides: Partial<AwsCall> = {}): AwsCall {
  return {
    service: 'dynamodb',
    region: 'eu-west-1',
    endpoint,
    headers: {
      'content-type': 'application/x-amz-json-1.0',
      'x-amz-target': 'DynamoDB_20120810.GetItem',
    },
    body: JSON.stringify({ TableName: 'listings-leads', Key: { pk: { S: 'a' }, sk: { S: 'b' } } }),
    credentials: localCredentials,
    ...overrides,
  };
}

describe('callAws retries', () => {
  it('retries a 500 and resolves with the parsed answer of the second attempt', async () => {
    // Prepare
    const server = await awsStandIn(
      json(500, { __type: 'com.amazonaws.dynamodb.v20120810#InternalServerError' }),
      json(200, { Item: { pk: { S: 'a' } } }),
    );
    // Act
    const output = await callAws(dynamoCall(server.endpoint));
    // Assess
    expect(output).toEqual({ Item: { pk: { S: 'a' } } });
    expect(server.requests).toHaveLength(2);
  });

  it('gives up on throttling after three attempts with an AwsServiceError named after __type', async () => {
    // Prepare
    const server = await awsStandIn(
      json(400, { __type: 'com.amazonaws.dynamodb.v20120810#ThrottlingException', message: 'Slow down' }),
    );
    // Act
    const error = await rejection(callAws(dynamoCall(server.endpoint)));
    // Assess
    expect(error).toBeInstanceOf(AwsServiceError);
    expect(error).toMatchObject({
      name: 'ThrottlingException',
      message: 'Slow down',
      $metadata: { httpStatusCode: 400, attempts: 3 },
    });
    expect(server.requests).toHaveLength(3);
  });

  it('does not retry a ValidationException', async () => {
    // Prepare
    const server = await awsStandIn(
      json(400, {
        __type: 'com.amazon.coral.validate#ValidationException',
        message: 'One or more parameter values were invalid',
      }),
      json(200, {}),
    );
    // Act
    const error = await rejection(callAws(dynamoCall(server.endpoint)));
    // Assess
    expect(error).toBeInstanceOf(AwsServiceError);
    expect(error).toMatchObject({
      name: 'ValidationException',
      message: 'One or more parameter values were invalid',
      $metadata: { httpStatusCode: 400, attempts: 1 },
    });
    expect(server.requests).toHaveLength(1);
  });

  it('retries a connection dropped mid-request and resolves with the next answer', async () => {
    // Prepare
    const server = await awsStandIn(hangUp, json(200, { ok: true }));
    // Act
    const output = await callAws(dynamoCall(server.endpoint));
    // Assess
    expect(output).toEqual({ ok: true });
    expect(server.requests).toHaveLength(2);
  });
  it('retries a 429 whatever the error is called', async () => {
    // Prepare
    const server = await awsStandIn(json(429, { message: 'Too many requests' }), json(200, { ok: true }));
    // Act
    const output = await callAws(dynamoCall(server.endpoint));
    // Assess
    expect(output).toEqual({ ok: true });
    expect(server.requests).toHaveLength(2);
  });

  it('abandons a socket that stays silent past the attempt timeout and retries', async () => {
    // Prepare: the first request is never answered
    const silent: Reply = () => {};
    const server = await awsStandIn(silent, json(200, { ok: true }));
    // Act
    const output = await callAws(dynamoCall(server.endpoint, { attemptTimeoutMs: 1000 }));
    // Assess: answered by a later attempt (on a loaded machine even the quick answer can miss the
    // timeout once, hence at least two)
    expect(output).toEqual({ ok: true });
    expect(server.requests.length).toBeGreaterThanOrEqual(2);
  });
});

describe('callAws answers', () => {
  it('refuses a success whose body is not JSON instead of reading it as empty', async () => {
    // Prepare
    const server = await awsStandIn((res) => {
      res.writeHead(200, { 'content-type': 'application/x-amz-json-1.0' });
      res.end('{"Item": {"pk": {"S": "a"}');
    });
    // Act
    const error = await rejection(callAws(dynamoCall(server.endpoint)));
    // Assess
    expect(error).toBeInstanceOf(Error);
    expect(server.requests).toHaveLength(1);
  });

  it('reads an empty success body as an empty answer', async () => {
    // Prepare
    const server = await awsStandIn((res) => {
      res.writeHead(200);
      res.end();
    });
    // Act / Assess
    expect(await callAws(dynamoCall(server.endpoint))).toEqual({});
  });
});

describe('callAws clock skew', () => {
  it('re-signs with the service clock after a signature refused as out of date, and back again', async () => {
    // Prepare: the service's clock is one hour ahead of ours, then back in step
    const hourAhead = new Date(Date.now() + 3_600_000);
    const skewed = (serverDate: Date): Reply =>
      json(
        400,
        { message: 'Signature expired: is now earlier than ... (... - 5 min.)' },
        {
          'x-amzn-ErrorType': 'InvalidSignatureException:http://internal.amazon.com/coral/',
          date: serverDate.toUTCString(),
        },
      );
    const ahead = await awsStandIn(skewed(hourAhead), json(200, { ok: true }));

    // Act
    const output = await callAws(dynamoCall(ahead.endpoint));

    // Assess: the retry was signed about an hour later than the refused request
    expect(output).toEqual({ ok: true });
    const [refused, retried] = ahead.requests.map((r) =>
      Date.parse(amzToIso(String(r.headers['x-amz-date']))),
    );
    expect(Math.round(((retried ?? 0) - (refused ?? 0)) / 60_000)).toBe(60);

    // Act again: the service's clock is back in step with ours
    const inStep = await awsStandIn(skewed(new Date()), json(200, { ok: true }));
    await callAws(dynamoCall(inStep.endpoint));

    // Assess: signed with our own clock again
    const last = Date.parse(amzToIso(String(inStep.requests[1]?.headers['x-amz-date'])));
    expect(Math.abs(last - Date.now())).toBeLessThan(60_000);
  });

  it('does not retry a signature refusal when the clocks agree', async () => {
    // Prepare
    const server = await awsStandIn(
      json(
        400,
        { message: 'The request signature we calculated does not match' },
        {
          'x-amzn-ErrorType': 'InvalidSignatureException:http://internal.amazon.com/coral/',
        },
      ),
    );
    // Act
    const error = await rejection(callAws(dynamoCall(server.endpoint)));
    // Assess
    expect(error).toMatchObject({ name: 'InvalidSignatureException' });
    expect(server.requests).toHaveLength(1);
  });
});

/** `20261121T223428Z` → `2026-11-21T22:34:28Z`. */
function amzToIso(amzDate: string): string {
  return amzDate.replace(/^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/, '$1-$2-$3T$4:$5:$6Z');
}

describe('callAws errors', () => {
  it('names the error from x-amzn-ErrorType when the body has no __type, with the body message', async () => {
    // Prepare
    const server = await awsStandIn(
      json(
        400,
        { message: 'Email address is not verified.' },
        {
          'x-amzn-ErrorType': 'MessageRejected:http://internal.amazon.com/coral/com.amazonaws.sesv2/',
          'x-amzn-RequestId': 'req-123',
        },
      ),
    );
    // Act
    const error = await rejection(
      callAws(dynamoCall(server.endpoint, { service: 'ses', path: '/v2/email/outbound-emails' })),
    );
    // Assess
    expect(error).toBeInstanceOf(AwsServiceError);
    expect(error).toMatchObject({
      name: 'MessageRejected',
      message: 'Email address is not verified.',
      $metadata: { httpStatusCode: 400, attempts: 1, requestId: 'req-123' },
    });
  });

  it('copies the other fields of the error body onto the error', async () => {
    // Prepare
    const reasons = [{ Code: 'ConditionalCheckFailed', Message: 'The conditional request failed' }];
    const server = await awsStandIn(
      json(400, {
        __type: 'com.amazonaws.dynamodb.v20120810#TransactionCanceledException',
        message: 'Transaction cancelled',
        CancellationReasons: reasons,
      }),
    );
    // Act
    const error = await rejection(callAws(dynamoCall(server.endpoint)));
    // Assess
    expect(error).toMatchObject({ name: 'TransactionCanceledException', CancellationReasons: reasons });
  });
});

describe('callAws signing', () => {
  const sessionCredentials: CredentialSource = async () => ({
    accessKeyId: 'AKIDEXAMPLE',
    secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY',
    sessionToken: 'session-token-example',
  });

  it('sends a SigV4-signed POST with the scope, the session token, the given headers and the exact body', async () => {
    // Prepare
    const server = await awsStandIn(json(200, {}));
    const body = JSON.stringify({ TableName: 'listings-leads', Key: { pk: { S: 'ünïcode' } } });
    const before = Date.now();
    // Act
    await callAws(dynamoCall(server.endpoint, { body, credentials: sessionCredentials }));
    // Assess
    const [request] = server.requests;
    expect(request).toMatchObject({ method: 'POST', path: '/', body });
    const headers = request?.headers ?? {};
    const amzDate = String(headers['x-amz-date']);
    expect(amzDate).toMatch(/^\d{8}T\d{6}Z$/);
    const signedAt = Date.parse(
      amzDate.replace(/^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/, '$1-$2-$3T$4:$5:$6Z'),
    );
    expect(signedAt).toBeGreaterThanOrEqual(Math.floor(before / 1000) * 1000);
    expect(signedAt).toBeLessThanOrEqual(Date.now());
    expect(headers.authorization).toMatch(
      new RegExp(
        `^AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/${amzDate.slice(0, 8)}/eu-west-1/dynamodb/aws4_request, ` +
          'SignedHeaders=[a-z0-9;-]+, Signature=[0-9a-f]{64}$',
      ),
    );
    expect(headers['x-amz-security-token']).toBe('session-token-example');
    expect(headers['x-amz-target']).toBe('DynamoDB_20120810.GetItem');
    expect(headers['content-type']).toBe('application/x-amz-json-1.0');
    expect(headers['content-length']).toBe(String(Buffer.byteLength(body)));
  });

  it('signs the host, date, token, target and content type headers', async () => {
    // Prepare
    const server = await awsStandIn(json(200, {}));
    // Act
    await callAws(dynamoCall(server.endpoint, { credentials: sessionCredentials }));
    // Assess
    const signed = String(server.requests[0]?.headers.authorization).match(/SignedHeaders=([^,]+)/)?.[1];
    expect(signed?.split(';')).toEqual([
      'content-type',
      'host',
      'x-amz-date',
      'x-amz-security-token',
      'x-amz-target',
    ]);
  });

  it('sends no session token header when the credentials have none', async () => {
    // Prepare
    const server = await awsStandIn(json(200, {}));
    // Act
    await callAws(dynamoCall(server.endpoint, { credentials: localCredentials }));
    // Assess
    const headers = server.requests[0]?.headers ?? {};
    expect(headers).not.toHaveProperty('x-amz-security-token');
    expect(headers.authorization).toMatch(/^AWS4-HMAC-SHA256 Credential=local\//);
  });
});
