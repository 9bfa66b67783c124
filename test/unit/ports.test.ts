import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { resetConfig } from '../../functions/kernel/config.ts';
import { enrichmentProvider, setEnrichmentProvider } from '../../functions/kernel/ports/ai-provider.ts';
import { BedrockEnrichmentProvider } from '../../functions/kernel/ports/bedrock-ai.ts';
import { emails, SesEmail, setEmails } from '../../functions/kernel/ports/email.ts';
import { photoStore, setPhotoStore } from '../../functions/kernel/ports/photo-store.ts';
import { queue, SqsQueue, setQueue } from '../../functions/kernel/ports/queue.ts';
import {
  BedrockScoringProvider,
  scoringProvider,
  setScoringProvider,
} from '../../functions/kernel/ports/scoring.ts';
import { bindLocalAdapters } from '../../scripts/local/adapters/index.ts';
import { LocalQueue } from '../../scripts/local/adapters/local-queue.ts';

const AWS_SETTINGS = {
  AI_QUEUE_URL: 'https://sqs.eu-west-1.amazonaws.com/123456789012/ai',
  EMAIL_FROM: 'noreply@agency.example',
  AI_MODEL_ID: 'eu.amazon.nova-lite-v1:0',
};

function setEnv(values: Record<string, string | undefined>): void {
  for (const [name, value] of Object.entries(values)) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
  resetConfig();
}

function unbindAll(): void {
  setQueue(undefined);
  setEmails(undefined);
  setEnrichmentProvider(undefined);
  setScoringProvider(undefined);
  setPhotoStore(undefined);
}

beforeEach(unbindAll);
afterEach(() => {
  setEnv({
    AWS_LAMBDA_FUNCTION_NAME: undefined,
    AI_QUEUE_URL: undefined,
    EMAIL_FROM: undefined,
    AI_MODEL_ID: undefined,
  });
  bindLocalAdapters();
});

describe('ports outside Lambda', () => {
  it('throw "not bound" when nothing is bound, even with the AWS settings present (no silent fallback)', () => {
    // Prepare
    setEnv(AWS_SETTINGS);
    // Act + Assess
    expect(() => queue()).toThrow(/queue port is not bound/);
    expect(() => emails()).toThrow(/email port is not bound/);
    expect(() => enrichmentProvider()).toThrow(/enrichment port is not bound/);
    expect(() => scoringProvider()).toThrow(/scoring port is not bound/);
  });

  it('return the adapter bound, and throw again once it is unbound', () => {
    // Prepare
    const local = new LocalQueue();
    // Act
    setQueue(local);
    const bound = queue();
    setQueue(undefined);
    // Assess
    expect(bound).toBe(local);
    expect(() => queue()).toThrow(/not bound/);
  });
});

describe('ports inside Lambda', () => {
  it('throw on first use, naming the missing setting', async () => {
    // Prepare
    setEnv({ AWS_LAMBDA_FUNCTION_NAME: 'listings-leads-ai-worker' });
    // Act + Assess
    // A function may send to some queues only: the queue's own setting is required when it sends there.
    await expect(queue().send('ai', {})).rejects.toThrow(/AI_QUEUE_URL is not set/);
    await expect(queue().send('images', {})).rejects.toThrow(/IMAGE_IMPORT_QUEUE_URL is not set/);
    expect(() => photoStore()).toThrow(/PHOTO_BUCKET is not set/);
    expect(() => emails()).toThrow(/EMAIL_FROM is not set/);
    expect(() => enrichmentProvider()).toThrow(/AI_MODEL_ID is not set/);
    expect(() => scoringProvider()).toThrow(/AI_MODEL_ID is not set/);
  });

  it('build the AWS adapters from their settings, once per container', () => {
    // Prepare
    setEnv({ AWS_LAMBDA_FUNCTION_NAME: 'listings-leads-ai-worker', ...AWS_SETTINGS });
    // Act
    const adapters = [queue(), emails(), enrichmentProvider(), scoringProvider()];
    // Assess
    expect(adapters[0]).toBeInstanceOf(SqsQueue);
    expect(adapters[1]).toBeInstanceOf(SesEmail);
    expect(adapters[2]).toBeInstanceOf(BedrockEnrichmentProvider);
    expect(adapters[3]).toBeInstanceOf(BedrockScoringProvider);
    expect(queue()).toBe(adapters[0]);
  });
});
