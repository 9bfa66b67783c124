import { afterEach, describe, expect, it } from 'vitest';
import type { EnrichmentRequest } from '../../functions/domain/enrichment.ts';
import { localCredentials } from '../../functions/platform/aws/aws-http.ts';
import { ProviderError } from '../../functions/platform/ports/ai.ts';
import { BedrockEnrichmentProvider } from '../../functions/platform/ports/bedrock-ai.ts';
import { bedrockConverse } from '../../functions/platform/ports/bedrock-converse.ts';
import { awsStandIn, closeStandIns, type StandIn } from '../support/aws-stand-in.ts';
import { converseReply, rejection } from '../support/bedrock.ts';

const MODEL = 'anthropic.claude-test-v1:0';

afterEach(closeStandIns);

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

/** The real provider, talking to `bedrock` over HTTP. */
const provider = (bedrock: StandIn) =>
  new BedrockEnrichmentProvider(
    MODEL,
    bedrockConverse({ endpoint: bedrock.endpoint, credentials: localCredentials }),
  );

describe('BedrockEnrichmentProvider', () => {
  it('parses a JSON answer and returns the token usage', async () => {
    // Prepare
    const bedrock = await awsStandIn(converseReply(JSON.stringify(good)));
    // Act
    const result = await provider(bedrock).enrich(request);
    // Assess
    expect(result.output).toEqual(good);
    expect(result.usage).toEqual({ inputTokens: 812, outputTokens: 240 });
  });

  it('finds the JSON object inside prose around it', async () => {
    // Prepare
    const bedrock = await awsStandIn(
      converseReply(`Here is the listing copy you asked for:\n\n${JSON.stringify(good)}\n\nHope it helps!`),
    );
    // Act
    const result = await provider(bedrock).enrich(request);
    // Assess
    expect(result.output.languages.es?.title).toBe('Villa soleada');
  });

  it('sends the system prompt, the listing facts as the one user message, and the inference settings', async () => {
    // Prepare
    const bedrock = await awsStandIn(converseReply(JSON.stringify(good)));
    // Act
    await provider(bedrock).enrich(request);
    // Assess
    const body = JSON.parse(bedrock.requests[0]?.body ?? '{}');
    expect(body).toEqual({
      system: [{ text: expect.any(String) }],
      messages: [{ role: 'user', content: [{ text: expect.any(String) }] }],
      inferenceConfig: { maxTokens: expect.any(Number), temperature: expect.any(Number) },
    });
    const system: string = body.system[0].text;
    expect(system).toMatch(/JSON/);
    expect(system).toMatch(/160/);
    expect(system).toMatch(/at most 6/);
    const user = JSON.parse(body.messages[0].content[0].text);
    expect(user).toMatchObject({ source_language: 'en', languages: ['en', 'es'], facts: request.facts });
    expect(body.inferenceConfig.maxTokens).toBeGreaterThan(0);
  });

  it('refuses text that is not JSON with a ProviderError', async () => {
    // Prepare
    const bedrock = await awsStandIn(converseReply('I cannot help with that {not json}'));
    // Act
    const error = await rejection(provider(bedrock).enrich(request));
    // Assess
    expect(error).toBeInstanceOf(ProviderError);
  });

  it('refuses an answer without text or without any JSON object', async () => {
    // Prepare
    const bedrock = await awsStandIn(converseReply(undefined), converseReply('no braces here'));
    // Act
    const empty = await rejection(provider(bedrock).enrich(request));
    const prose = await rejection(provider(bedrock).enrich(request));
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
    const bedrock = await awsStandIn(
      converseReply(JSON.stringify(seven)),
      converseReply(JSON.stringify(longSeo)),
      converseReply(JSON.stringify(missing)),
    );
    // Act
    const errors = [
      await rejection(provider(bedrock).enrich(request)),
      await rejection(provider(bedrock).enrich(request)),
      await rejection(provider(bedrock).enrich(request)),
    ];
    // Assess
    for (const error of errors) {
      expect(error).toBeInstanceOf(ProviderError);
      expect((error as Error).message).toMatch(/validation/);
    }
  });
});
