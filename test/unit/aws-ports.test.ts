import {
  BedrockRuntimeClient,
  ConverseCommand,
  ThrottlingException,
  ValidationException,
} from '@aws-sdk/client-bedrock-runtime';
import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { SESv2Client, SendEmailCommand } from '@aws-sdk/client-sesv2';
import { QueueDoesNotExist, SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { resetConfig } from '../../functions/kernel/config.ts';
import { cursorSecret, loadCursorSecret, resetCursorSecret } from '../../functions/kernel/cursor-secret.ts';
import { bedrockConverse } from '../../functions/kernel/ports/bedrock-converse.ts';
import { SesEmail } from '../../functions/kernel/ports/email.ts';
import { SqsQueue } from '../../functions/kernel/ports/queue.ts';
import { converseAnswer, rejection } from '../support/bedrock.ts';

const sqs = mockClient(SQSClient);
const ses = mockClient(SESv2Client);
const bedrock = mockClient(BedrockRuntimeClient);
const secrets = mockClient(SecretsManagerClient);

beforeEach(() => {
  sqs.reset();
  ses.reset();
  bedrock.reset();
  secrets.reset();
});
// The unit files share their worker's modules (isolate: false): the next file gets the real clients.
afterAll(() => {
  for (const mock of [sqs, ses, bedrock, secrets]) mock.restore();
});

const QUEUE_URL = 'https://sqs.eu-west-1.amazonaws.com/123456789012/ai';

describe('SqsQueue', () => {
  it('sends one SendMessage to the queue URL with the message as JSON', async () => {
    // Prepare
    sqs.on(SendMessageCommand).resolves({ MessageId: 'm-1' });
    // Act
    await new SqsQueue({ ai: QUEUE_URL }).send('ai', { kind: 'enrich', id: 'p-1' });
    // Assess
    const calls = sqs.commandCalls(SendMessageCommand);
    expect(calls).toHaveLength(1);
    expect(calls[0]?.args[0].input).toEqual({
      QueueUrl: QUEUE_URL,
      MessageBody: JSON.stringify({ kind: 'enrich', id: 'p-1' }),
      DelaySeconds: 0,
    });
  });

  it.each([
    [1200, 900],
    [900, 900],
    [30, 30],
    [12.4, 12],
    [-5, 0],
  ])('clamps a delay of %s s to DelaySeconds %i (SQS allows 0-900)', async (asked, sent) => {
    // Prepare
    sqs.on(SendMessageCommand).resolves({ MessageId: 'm-1' });
    // Act
    await new SqsQueue({ ai: QUEUE_URL }).send('ai', { kind: 'enrich' }, { delaySeconds: asked });
    // Assess
    expect(sqs.commandCalls(SendMessageCommand)[0]?.args[0].input.DelaySeconds).toBe(sent);
  });

  it('rejects with the SQS error when the queue does not exist', async () => {
    // Prepare
    sqs
      .on(SendMessageCommand)
      .rejects(new QueueDoesNotExist({ message: 'The specified queue does not exist.', $metadata: {} }));
    // Act
    const error = await rejection(new SqsQueue({ ai: QUEUE_URL }).send('ai', { kind: 'enrich' }));
    // Assess
    expect(error).toBeInstanceOf(QueueDoesNotExist);
    expect(error).toMatchObject({ name: 'QueueDoesNotExist' });
  });
});

describe('SesEmail', () => {
  const email = {
    tenantId: 'tenant-123',
    to: 'buyer@example.com',
    subject: 'Nuevo contacto: Ana Núñez',
    text: 'Ana Núñez asked about Casa Blanca.',
  };

  it('sends a SES v2 SendEmail from the sender to the recipient, UTF-8, tagged with the tenant', async () => {
    // Prepare
    ses.on(SendEmailCommand).resolves({ MessageId: 'ses-1' });
    // Act
    await new SesEmail('noreply@agency.example').send(email);
    // Assess
    const calls = ses.commandCalls(SendEmailCommand);
    expect(calls).toHaveLength(1);
    expect(calls[0]?.args[0].input).toEqual({
      FromEmailAddress: 'noreply@agency.example',
      Destination: { ToAddresses: ['buyer@example.com'] },
      Content: {
        Simple: {
          Subject: { Data: 'Nuevo contacto: Ana Núñez', Charset: 'UTF-8' },
          Body: { Text: { Data: 'Ana Núñez asked about Casa Blanca.', Charset: 'UTF-8' } },
        },
      },
      EmailTags: [{ Name: 'tenant', Value: 'tenant-123' }],
    });
  });

  it('lets a refusal through (e.g. an unverified sender)', async () => {
    // Prepare
    ses
      .on(SendEmailCommand)
      .rejects(Object.assign(new Error('Email address is not verified.'), { name: 'MessageRejected' }));
    // Act
    const error = await rejection(new SesEmail('noreply@agency.example').send(email));
    // Assess
    expect(error).toMatchObject({ name: 'MessageRejected', message: 'Email address is not verified.' });
  });
});

describe('bedrockConverse', () => {
  const MODEL = 'eu.amazon.nova-lite-v1:0';
  const ask = { modelId: MODEL, system: 'Answer in JSON.', user: '{"q":1}', maxTokens: 600, temperature: 0 };

  it('sends one Converse for the model with the system prompt and one user message, and returns text and usage', async () => {
    // Prepare
    bedrock.on(ConverseCommand).resolves(converseAnswer('{"a":1}'));
    // Act
    const answer = await bedrockConverse()(ask);
    // Assess
    expect(answer).toEqual({ text: '{"a":1}', usage: { inputTokens: 812, outputTokens: 240 } });
    const calls = bedrock.commandCalls(ConverseCommand);
    expect(calls).toHaveLength(1);
    expect(calls[0]?.args[0].input).toEqual({
      modelId: MODEL,
      system: [{ text: 'Answer in JSON.' }],
      messages: [{ role: 'user', content: [{ text: '{"q":1}' }] }],
      inferenceConfig: { maxTokens: 600, temperature: 0 },
    });
  });

  it('returns the first text block, and no text when the model sent none', async () => {
    // Prepare
    bedrock
      .on(ConverseCommand)
      .resolvesOnce({
        output: {
          message: { role: 'assistant', content: [{ reasoningContent: undefined } as never, { text: 'b' }] },
        },
        usage: { inputTokens: 1, outputTokens: 2, totalTokens: 3 },
        $metadata: {},
      } as never)
      .resolvesOnce(converseAnswer(undefined));
    // Act
    const first = await bedrockConverse()(ask);
    const empty = await bedrockConverse()(ask);
    // Assess
    expect(first).toEqual({ text: 'b', usage: { inputTokens: 1, outputTokens: 2 } });
    expect(empty.text).toBeUndefined();
  });

  it('lets throttling through unchanged (the SDK has retried), for the worker to retry later', async () => {
    // Prepare
    bedrock
      .on(ConverseCommand)
      .rejects(new ThrottlingException({ message: 'Too many requests', $metadata: { attempts: 3 } }));
    // Act
    const error = await rejection(bedrockConverse()(ask));
    // Assess
    expect(error).toBeInstanceOf(ThrottlingException);
    expect(error).toMatchObject({ name: 'ThrottlingException', message: 'Too many requests' });
  });

  it('lets a refusal of the request through', async () => {
    // Prepare
    bedrock
      .on(ConverseCommand)
      .rejects(
        new ValidationException({ message: 'The provided model identifier is invalid.', $metadata: {} }),
      );
    // Act
    const error = await rejection(bedrockConverse()(ask));
    // Assess
    expect(error).toBeInstanceOf(ValidationException);
  });
});

describe('SDK clients', () => {
  it('use the standard retry mode with three attempts, in the configured region', async () => {
    // Prepare
    sqs.on(SendMessageCommand).resolves({});
    ses.on(SendEmailCommand).resolves({});
    bedrock.on(ConverseCommand).resolves(converseAnswer('{}'));
    // Act
    await new SqsQueue({ ai: QUEUE_URL }).send('ai', {});
    await new SesEmail('noreply@agency.example').send({
      tenantId: 't',
      to: 'a@example.com',
      subject: 's',
      text: 't',
    });
    await bedrockConverse()({ modelId: 'm', system: 's', user: 'u', maxTokens: 1, temperature: 0 });
    // Assess
    const clients = [
      sqs.commandCalls(SendMessageCommand)[0]?.thisValue,
      ses.commandCalls(SendEmailCommand)[0]?.thisValue,
      bedrock.commandCalls(ConverseCommand)[0]?.thisValue,
    ] as (SQSClient | SESv2Client | BedrockRuntimeClient)[];
    for (const client of clients) {
      expect(client.config.retryMode).toBe('standard');
      expect(await client.config.maxAttempts()).toBe(3);
      expect(await client.config.region()).toBe('us-east-1');
    }
  });

  it('are created once per container', async () => {
    // Prepare
    sqs.on(SendMessageCommand).resolves({});
    // Act
    await new SqsQueue({ ai: QUEUE_URL }).send('ai', {});
    await new SqsQueue({ ai: QUEUE_URL }).send('ai', {});
    // Assess
    const [first, second] = sqs.commandCalls(SendMessageCommand);
    expect(first?.thisValue).toBe(second?.thisValue);
  });
});

describe('cursor secret', () => {
  const ARN = 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:cursor-AbCdEf';
  const saved = process.env.CURSOR_SECRET;

  beforeEach(() => {
    delete process.env.CURSOR_SECRET;
    resetConfig();
    resetCursorSecret();
  });
  afterEach(() => {
    process.env.CURSOR_SECRET = saved;
    delete process.env.CURSOR_SECRET_ARN;
    resetConfig();
    resetCursorSecret();
  });

  it('is read from Secrets Manager once per container when CURSOR_SECRET_ARN is set', async () => {
    // Prepare
    process.env.CURSOR_SECRET_ARN = ARN;
    resetConfig();
    secrets.on(GetSecretValueCommand).resolves({ SecretString: 'k'.repeat(64) });
    // Act
    const first = await loadCursorSecret();
    const second = await loadCursorSecret();
    // Assess
    expect(first).toBe('k'.repeat(64));
    expect(second).toBe(first);
    expect(cursorSecret()).toBe(first);
    const calls = secrets.commandCalls(GetSecretValueCommand);
    expect(calls).toHaveLength(1);
    expect(calls[0]?.args[0].input).toEqual({ SecretId: ARN });
  });

  it('has no default: neither CURSOR_SECRET nor CURSOR_SECRET_ARN throws', async () => {
    // Act
    const loading = await rejection(loadCursorSecret());
    // Assess
    expect((loading as Error).message).toMatch(/CURSOR_SECRET_ARN/);
    expect(() => cursorSecret()).toThrow(/CURSOR_SECRET/);
    expect(secrets.commandCalls(GetSecretValueCommand)).toHaveLength(0);
  });

  it('refuses a secret shorter than 16 characters, and reads it again on the next try', async () => {
    // Prepare
    process.env.CURSOR_SECRET_ARN = ARN;
    resetConfig();
    secrets
      .on(GetSecretValueCommand)
      .resolvesOnce({ SecretString: 'short' })
      .resolvesOnce({ SecretString: 'a-long-enough-secret' });
    // Act
    const error = await rejection(loadCursorSecret());
    const retried = await loadCursorSecret();
    // Assess
    expect((error as Error).message).toMatch(/at least 16 characters/);
    expect(retried).toBe('a-long-enough-secret');
  });
});
