import { describe, expect, it } from 'vitest';
import {
  EnrichmentOutput,
  type EnrichmentRequest,
  MAX_HIGHLIGHTS,
  SEO_DESCRIPTION_MAX,
} from '../../functions/domain/enrichment.ts';
import { LocalEnrichmentProvider } from '../../scripts/local/adapters/local-ai.ts';

function request(over: Partial<EnrichmentRequest> = {}, facts: Partial<EnrichmentRequest['facts']> = {}) {
  return {
    sourceLanguage: 'en',
    languages: ['en', 'es', 'de'],
    facts: {
      title: 'Sunny villa with sea views',
      description: 'A sunny villa close to the beach.',
      listingType: 'sale',
      propertyType: 'villa',
      bedrooms: 4,
      bathrooms: '3',
      area: '250',
      lotArea: '1200',
      price: '950000',
      rentPrice: null,
      currency: 'EUR',
      place: 'Marbella',
      amenities: ['pool', 'garden', 'terrace'],
      ...facts,
    },
    clientWritten: { en: { title: true, description: true } },
    ...over,
  } satisfies EnrichmentRequest;
}

describe('LocalEnrichmentProvider', () => {
  const provider = new LocalEnrichmentProvider();

  it('never returns a title or description translation, in any language', async () => {
    // Act
    const { output } = await provider.enrich(request());
    // Assess
    expect(Object.keys(output.languages).sort()).toEqual(['de', 'en', 'es']);
    for (const text of Object.values(output.languages)) {
      expect(text.title).toBeNull();
      expect(text.description).toBeNull();
    }
  });

  it('states facts with each language’s own phrases, within the output schema', async () => {
    // Act
    const { output, usage } = await provider.enrich(request());
    // Assess
    expect(EnrichmentOutput.safeParse(output).success).toBe(true);
    const { en, es, de } = output.languages;
    expect(en?.highlights).toContain('4 bedrooms');
    expect(es?.highlights).toContain('4 dormitorios');
    expect(es?.highlights).toContain('Piscina');
    expect(de?.highlights).toContain('Garten');
    expect(es?.seo_description).toContain('en venta en Marbella');
    for (const text of [en, es, de]) {
      expect(text?.highlights.length).toBeLessThanOrEqual(MAX_HIGHLIGHTS);
      expect(text?.seo_description.length).toBeLessThanOrEqual(SEO_DESCRIPTION_MAX);
      // nothing of the source prose is passed off as another language’s text
      expect(text?.seo_description).not.toContain('Sunny villa');
    }
    expect(usage.inputTokens).toBeGreaterThan(0);
    expect(usage.outputTokens).toBe(0);
  });

  it('caps highlights at six and the SEO description at 160 characters', async () => {
    // Act
    const { output } = await provider.enrich(
      request(
        { languages: ['en'] },
        {
          amenities: ['pool', 'garden', 'terrace', 'balcony', 'private_pool', 'heated_pool'],
          place: 'A very long place name '.repeat(10),
        },
      ),
    );
    // Assess
    expect(output.languages.en?.highlights).toHaveLength(MAX_HIGHLIGHTS);
    expect(output.languages.en?.seo_description.length).toBeLessThanOrEqual(SEO_DESCRIPTION_MAX);
  });

  it('returns nothing for a language it has no phrases for, rather than English in disguise', async () => {
    // Act
    const { output } = await provider.enrich(request({ languages: ['en', 'ja', 'fi'] }));
    // Assess
    expect(Object.keys(output.languages)).toEqual(['en']);
  });

  it('leaves the source language’s highlights to the client when the client wrote them', async () => {
    // Act
    const { output } = await provider.enrich(
      request({ clientWritten: { en: { title: true, description: true, highlights: true } } }),
    );
    // Assess
    expect(output.languages.en?.highlights).toEqual([]);
    expect(output.languages.es?.highlights.length).toBeGreaterThan(0);
  });

  it('is deterministic', async () => {
    expect(await provider.enrich(request())).toEqual(await provider.enrich(request()));
  });
});
