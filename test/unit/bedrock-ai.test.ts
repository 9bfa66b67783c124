import { afterEach, describe, expect, it } from 'vitest';
import type { EnrichmentRequest } from '../../functions/domain/enrichment.ts';
import { ProviderError } from '../../functions/kernel/ports/ai.ts';
import { BedrockEnrichmentProvider } from '../../functions/kernel/ports/bedrock-ai.ts';
import { converseAnswer, mockBedrock, rejection, unmockBedrock } from '../support/bedrock.ts';

const MODEL = 'anthropic.claude-test-v1:0';

afterEach(() => {
  unmockBedrock();
});

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

/** The real provider; its Bedrock Runtime client is mocked at the SDK edge. */
const provider = () => new BedrockEnrichmentProvider(MODEL);

describe('BedrockEnrichmentProvider', () => {
  it('parses a JSON answer and returns the token usage', async () => {
    // Prepare
    mockBedrock(converseAnswer(JSON.stringify(good)));
    // Act
    const result = await provider().enrich(request);
    // Assess
    expect(result.output).toEqual(good);
    expect(result.usage).toEqual({ inputTokens: 812, outputTokens: 240 });
  });

  it('finds the JSON object inside prose around it', async () => {
    // Prepare
    mockBedrock(
      converseAnswer(`Here is the listing copy you asked for:\n\n${JSON.stringify(good)}\n\nHope it helps!`),
    );
    // Act
    const result = await provider().enrich(request);
    // Assess
    expect(result.output.languages.es?.title).toBe('Villa soleada');
  });

  it('sends the system prompt, the listing facts as the one user message, and the inference settings', async () => {
    // Prepare
    const bedrock = mockBedrock(converseAnswer(JSON.stringify(good)));
    // Act
    await provider().enrich(request);
    // Assess
    const body = bedrock.inputs()[0];
    expect(body).toEqual({
      modelId: MODEL,
      system: [{ text: expect.any(String) }],
      messages: [{ role: 'user', content: [{ text: expect.any(String) }] }],
      inferenceConfig: { maxTokens: expect.any(Number), temperature: expect.any(Number) },
    });
    const system = String(body?.system?.[0]?.text);
    expect(system).toMatch(/JSON/);
    expect(system).toMatch(/160/);
    expect(system).toMatch(/at most 6/);
    const user = JSON.parse(String(body?.messages?.[0]?.content?.[0]?.text));
    expect(user).toMatchObject({ source_language: 'en', languages: ['en', 'es'], facts: request.facts });
    expect(body?.inferenceConfig?.maxTokens).toBeGreaterThan(0);
  });

  it('refuses text that is not JSON with a ProviderError', async () => {
    // Prepare
    mockBedrock(converseAnswer('I cannot help with that {not json}'));
    // Act
    const error = await rejection(provider().enrich(request));
    // Assess
    expect(error).toBeInstanceOf(ProviderError);
  });

  it('refuses an answer without text or without any JSON object', async () => {
    // Prepare
    mockBedrock(converseAnswer(undefined), converseAnswer('no braces here'));
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
    mockBedrock(
      converseAnswer(JSON.stringify(seven)),
      converseAnswer(JSON.stringify(longSeo)),
      converseAnswer(JSON.stringify(missing)),
    );
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
});
