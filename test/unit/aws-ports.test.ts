import { afterEach, describe, expect, it } from 'vitest';
import { AwsServiceError, localCredentials } from '../../functions/platform/aws/aws-http.ts';
import { config } from '../../functions/platform/config.ts';
import { bedrockConverse } from '../../functions/platform/ports/bedrock-converse.ts';
import { SesEmail } from '../../functions/platform/ports/email.ts';
import { SqsQueue } from '../../functions/platform/ports/queue.ts';
import { awsStandIn, closeStandIns, credentialScope, json } from '../support/aws-stand-in.ts';
import { bedrockError, converseReply, rejection } from '../support/bedrock.ts';

afterEach(closeStandIns);

describe('SqsQueue', () => {
  it('sends SendMessage to the queue URL origin with the JSON message and the delay clamped to 900 s', async () => {
    // Prepare
    const sqs = await awsStandIn(json(200, { MessageId: 'm-1', MD5OfMessageBody: 'x' }));
    const queueUrl = `${sqs.endpoint}/123456789012/ai`;
    // Act
    await new SqsQueue({ ai: queueUrl }, localCredentials).send(
      'ai',
      { kind: 'enrich' },
      { delaySeconds: 1200 },
    );
    // Assess
    expect(sqs.requests).toHaveLength(1);
    const [request] = sqs.requests;
    expect(request?.method).toBe('POST');
    expect(request?.path).toBe('/');
    expect(request?.headers['x-amz-target']).toBe('AmazonSQS.SendMessage');
    expect(request?.headers['content-type']).toBe('application/x-amz-json-1.0');
    expect(JSON.parse(request?.body ?? '')).toEqual({
      QueueUrl: queueUrl,
      MessageBody: JSON.stringify({ kind: 'enrich' }),
      DelaySeconds: 900,
    });
  });

  it('signs the request for service sqs in the configured region', async () => {
    // Prepare
    const sqs = await awsStandIn(json(200, { MessageId: 'm-1' }));
    // Act
    await new SqsQueue({ ai: `${sqs.endpoint}/123456789012/ai` }, localCredentials).send('ai', {
      kind: 'enrich',
    });
    // Assess
    expect(credentialScope(sqs.requests[0]?.headers ?? {})).toEqual([config().AWS_REGION, 'sqs']);
  });

  it('rejects with the SQS error name when the queue does not exist', async () => {
    // Prepare
    const sqs = await awsStandIn(
      json(400, {
        __type: 'com.amazonaws.sqs#QueueDoesNotExist',
        message: 'The specified queue does not exist.',
      }),
    );
    // Act
    const error = await rejection(
      new SqsQueue({ ai: `${sqs.endpoint}/123456789012/gone` }, localCredentials).send('ai', {
        kind: 'enrich',
      }),
    );
    // Assess
    expect(error).toBeInstanceOf(AwsServiceError);
    expect(error).toMatchObject({
      name: 'QueueDoesNotExist',
      message: 'The specified queue does not exist.',
      $metadata: { httpStatusCode: 400 },
    });
    expect(sqs.requests).toHaveLength(1);
  });
});

describe('SesEmail', () => {
  const email = {
    tenantId: 'tenant-123',
    to: 'buyer@example.com',
    subject: 'New lead: Ana',
    text: 'Ana asked about Casa Blanca.',
  };

  it('posts a SES v2 SendEmail from the sender to the recipient, tagged with the tenant', async () => {
    // Prepare
    const ses = await awsStandIn(json(200, { MessageId: 'ses-1' }));
    // Act
    await new SesEmail('noreply@agency.example', {
      endpoint: ses.endpoint,
      credentials: localCredentials,
    }).send(email);
    // Assess
    expect(ses.requests).toHaveLength(1);
    const [request] = ses.requests;
    expect(request?.method).toBe('POST');
    expect(request?.path).toBe('/v2/email/outbound-emails');
    expect(request?.headers['content-type']).toBe('application/json');
    expect(JSON.parse(request?.body ?? '')).toEqual({
      FromEmailAddress: 'noreply@agency.example',
      Destination: { ToAddresses: ['buyer@example.com'] },
      Content: {
        Simple: {
          Subject: { Data: 'New lead: Ana', Charset: 'UTF-8' },
          Body: { Text: { Data: 'Ana asked about Casa Blanca.', Charset: 'UTF-8' } },
        },
      },
      EmailTags: [{ Name: 'tenant', Value: 'tenant-123' }],
    });
  });

  it('signs the request for service ses in the configured region', async () => {
    // Prepare
    const ses = await awsStandIn(json(200, { MessageId: 'ses-1' }));
    // Act
    await new SesEmail('noreply@agency.example', {
      endpoint: ses.endpoint,
      credentials: localCredentials,
    }).send(email);
    // Assess
    expect(credentialScope(ses.requests[0]?.headers ?? {})).toEqual([config().AWS_REGION, 'ses']);
  });
});

describe('bedrockConverse', () => {
  const MODEL = 'anthropic.claude-test-v1:0';
  const ask = { modelId: MODEL, system: 'Answer in JSON.', user: '{"q":1}', maxTokens: 600, temperature: 0 };
  const converse = (endpoint: string) => bedrockConverse({ endpoint, credentials: localCredentials });

  it('posts one Converse request for the model, its id encoded in the path, and returns text and usage', async () => {
    // Prepare
    const bedrock = await awsStandIn(converseReply('{"a":1}'));
    // Act
    const answer = await converse(bedrock.endpoint)(ask);
    // Assess
    expect(answer).toEqual({ text: '{"a":1}', usage: { inputTokens: 812, outputTokens: 240 } });
    expect(bedrock.requests).toHaveLength(1);
    const [sent] = bedrock.requests;
    expect(sent?.method).toBe('POST');
    expect(sent?.path).toBe('/model/anthropic.claude-test-v1%3A0/converse');
    expect(sent?.headers['content-type']).toBe('application/json');
    expect(JSON.parse(sent?.body ?? '')).toEqual({
      system: [{ text: 'Answer in JSON.' }],
      messages: [{ role: 'user', content: [{ text: '{"q":1}' }] }],
      inferenceConfig: { maxTokens: 600, temperature: 0 },
    });
  });

  it('signs the request for service bedrock in the configured region', async () => {
    // Prepare
    const bedrock = await awsStandIn(converseReply('{}'));
    // Act
    await converse(bedrock.endpoint)(ask);
    // Assess
    expect(credentialScope(bedrock.requests[0]?.headers ?? {})).toEqual([config().AWS_REGION, 'bedrock']);
  });

  it('lets Bedrock throttling through after three attempts, for the worker to retry', async () => {
    // Prepare
    const bedrock = await awsStandIn(bedrockError(400, 'ThrottlingException', 'Too many requests'));
    // Act
    const error = await rejection(converse(bedrock.endpoint)(ask));
    // Assess
    expect(error).toBeInstanceOf(AwsServiceError);
    expect(error).toMatchObject({
      name: 'ThrottlingException',
      message: 'Too many requests',
      $metadata: { httpStatusCode: 400, attempts: 3 },
    });
    expect(bedrock.requests).toHaveLength(3);
  });

  it('lets a refusal of the request through at once', async () => {
    // Prepare
    const bedrock = await awsStandIn(
      bedrockError(400, 'ValidationException', 'The provided model identifier is invalid.'),
    );
    // Act
    const error = await rejection(converse(bedrock.endpoint)(ask));
    // Assess
    expect(error).toMatchObject({ name: 'ValidationException', $metadata: { attempts: 1 } });
    expect(bedrock.requests).toHaveLength(1);
  });
});
