import { BedrockRuntimeClient, ConverseCommand } from '@aws-sdk/client-bedrock-runtime';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, describe, expect, it } from 'vitest';
import type { EnrichmentRequest } from '../../functions/domain/enrichment.ts';
import { ProviderError } from '../../functions/platform/ports/ai.ts';
import { BedrockEnrichmentProvider } from '../../functions/platform/ports/bedrock-ai.ts';
import { converseAnswer, rejection } from '../support/bedrock.ts';

const MODEL = 'anthropic.claude-test-v1:0';

const bedrock = mockClient(BedrockRuntimeClient);
afterEach(() => bedrock.reset());

const request: EnrichmentRequest = {
  sourceLanguage: 'en',
  languages: ['en', 'es'],
  facts: {
    title: 'Sunny villa',
    description: 'Close to the beach.',
    listingType: 'sale',
    propertyType: 'villa',
    bedrooms: 4,
    bathrooms: '3',
    area: '250',
    lotArea: null,
    price: '950000',
    rentPrice: null,
    currency: 'EUR',
    place: 'Marbella',
    amenities: ['pool'],
  },
  clientWritten: { en: { title: true, description: true } },
};

const good = {
  languages: {
    en: {
      title: null,
      description: null,
      highlights: ['4 bedrooms', 'Pool'],
      seo_description: 'Villa for sale',
    },
    es: {
      title: 'Villa soleada',
      description: 'Cerca de la playa.',
      highlights: ['4 dormitorios'],
      seo_description: 'Villa en venta',
    },
  },
};

const answer = converseAnswer;

const provider = () => new BedrockEnrichmentProvider(MODEL, bedrock as unknown as BedrockRuntimeClient);

describe('BedrockEnrichmentProvider', () => {
  it('parses a JSON answer and returns the token usage', async () => {
    // Prepare
    bedrock.on(ConverseCommand).resolves(answer(JSON.stringify(good)));
    // Act
    const result = await provider().enrich(request);
    // Assess
    expect(result.output).toEqual(good);
    expect(result.usage).toEqual({ inputTokens: 812, outputTokens: 240 });
  });

  it('finds the JSON object inside prose around it', async () => {
    // Prepare
    bedrock
      .on(ConverseCommand)
      .resolves(
        answer(`Here is the listing copy you asked for:\n\n${JSON.stringify(good)}\n\nHope it helps!`),
      );
    // Act
    const result = await provider().enrich(request);
    // Assess
    expect(result.output.languages.es?.title).toBe('Villa soleada');
  });

  it('sends the configured model id, the system prompt and the listing facts', async () => {
    // Prepare
    bedrock.on(ConverseCommand).resolves(answer(JSON.stringify(good)));
    // Act
    await provider().enrich(request);
    // Assess
    const calls = bedrock.commandCalls(ConverseCommand);
    expect(calls).toHaveLength(1);
    const input = calls[0]?.args[0].input;
    expect(input?.modelId).toBe(MODEL);
    const system = input?.system?.[0]?.text ?? '';
    expect(system).toMatch(/JSON/);
    expect(system).toMatch(/160/);
    expect(system).toMatch(/at most 6/);
    const user = JSON.parse(input?.messages?.[0]?.content?.[0]?.text ?? '{}');
    expect(user).toMatchObject({ source_language: 'en', languages: ['en', 'es'], facts: request.facts });
  });

  it('refuses text that is not JSON with a ProviderError', async () => {
    // Prepare
    bedrock.on(ConverseCommand).resolves(answer('I cannot help with that {not json}'));
    // Act
    const error = await rejection(provider().enrich(request));
    // Assess
    expect(error).toBeInstanceOf(ProviderError);
  });

  it('refuses an answer without text or without any JSON object', async () => {
    // Prepare
    bedrock.on(ConverseCommand).resolvesOnce(answer(undefined)).resolvesOnce(answer('no braces here'));
    // Act
    const empty = await rejection(provider().enrich(request));
    const prose = await rejection(provider().enrich(request));
    // Assess
    expect(empty).toBeInstanceOf(ProviderError);
    expect(prose).toBeInstanceOf(ProviderError);
  });

  it('refuses output that fails the schema: seven highlights, an SEO text over 160 characters', async () => {
    // Prepare
    const seven = structuredClone(good);
    (seven.languages.en as { highlights: string[] }).highlights = ['1', '2', '3', '4', '5', '6', '7'];
    const longSeo = structuredClone(good);
    longSeo.languages.es.seo_description = 'x'.repeat(161);
    const missing = { languages: { en: { title: null, highlights: [] } } };
    bedrock
      .on(ConverseCommand)
      .resolvesOnce(answer(JSON.stringify(seven)))
      .resolvesOnce(answer(JSON.stringify(longSeo)))
      .resolvesOnce(answer(JSON.stringify(missing)));
    // Act
    const errors = [
      await rejection(provider().enrich(request)),
      await rejection(provider().enrich(request)),
      await rejection(provider().enrich(request)),
    ];
    // Assess
    for (const error of errors) {
      expect(error).toBeInstanceOf(ProviderError);
      expect((error as Error).message).toMatch(/validation/);
    }
  });

  it('lets a Bedrock service error through for the worker to retry', async () => {
    // Prepare
    bedrock.on(ConverseCommand).rejects(new Error('ThrottlingException'));
    // Act
    const error = await rejection(provider().enrich(request));
    // Assess
    expect((error as Error).message).toBe('ThrottlingException');
  });
});
