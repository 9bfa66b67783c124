import { describe, expect, it } from 'vitest';
import {
  clientWritten,
  type ListingTexts,
  viewTexts,
  writeTexts,
} from '../../functions/domain/listing-text.ts';

const listing = (texts: ListingTexts = {}, description: string | null = 'Bright flat') => ({
  title: 'Piso luminoso',
  ...(description !== null ? { description } : {}),
  sourceLanguage: 'es',
  texts,
});

describe('writeTexts', () => {
  it('keeps the source language title and description on the listing, marking them the client’s', () => {
    // Act
    const texts = writeTexts({}, 'es', 'es', { title: 'Piso', description: 'Luminoso', highlights: ['Luz'] });
    // Assess
    expect(texts).toEqual({
      es: {
        highlights: ['Luz'],
        clientFields: expect.arrayContaining(['title', 'description', 'highlights']),
      },
    });
    expect(texts.es?.title).toBeUndefined();
    expect(texts.es?.description).toBeUndefined();
  });

  it('stores another language’s text in that language and marks it the client’s', () => {
    // Act
    const texts = writeTexts({}, 'de', 'es', { title: 'Helle Wohnung', highlights: ['Licht'] });
    // Assess
    expect(texts.de).toEqual({
      title: 'Helle Wohnung',
      highlights: ['Licht'],
      clientFields: expect.arrayContaining(['title', 'highlights']),
    });
    expect(texts.de?.clientFields).toHaveLength(2);
    expect(texts.es).toBeUndefined();
  });

  it('leaves omitted fields and other languages alone and does not mutate its input', () => {
    // Prepare
    const before: ListingTexts = {
      de: { title: 'Alt', description: 'Beschreibung', clientFields: ['title'] },
      en: { title: 'Old', highlights: ['AI one'], seoDescription: 'seo' },
    };
    const snapshot = structuredClone(before);
    // Act
    const after = writeTexts(before, 'de', 'es', { description: 'Neu' });
    // Assess
    expect(before).toEqual(snapshot);
    expect(after.de).toMatchObject({ title: 'Alt', description: 'Neu' });
    expect(new Set(after.de?.clientFields)).toEqual(new Set(['title', 'description']));
    expect(after.en).toEqual(snapshot.en);
  });

  it('clears a field on null and hands it back to AI (no longer the client’s)', () => {
    // Prepare
    const before = writeTexts({}, 'de', 'es', { title: 'Titel', highlights: ['A', 'B'] });
    // Act
    const after = writeTexts(before, 'de', 'es', { highlights: null });
    // Assess
    expect(after.de?.highlights).toBeUndefined();
    expect(after.de?.clientFields).toEqual(['title']);
    expect(after.de?.title).toBe('Titel');
  });
});

describe('viewTexts', () => {
  it('shows the listing’s own text without a language, and in its source language', () => {
    // Prepare
    const l = listing({
      es: { highlights: ['Luz'], seoDescription: 'SEO es', clientFields: ['highlights'] },
    });
    // Act
    const own = viewTexts(l);
    const es = viewTexts(l, 'es');
    // Assess
    expect(own).toEqual({
      language: 'es',
      title: 'Piso luminoso',
      description: 'Bright flat',
      highlights: ['Luz'],
      seo_description: 'SEO es',
      untranslated: [],
    });
    expect(es).toEqual(own);
  });

  it('falls back to the source text in a language without text and says which fields are untranslated', () => {
    // Act
    const view = viewTexts(listing(), 'de');
    // Assess
    expect(view).toEqual({
      language: 'de',
      title: 'Piso luminoso',
      description: 'Bright flat',
      highlights: [],
      seo_description: null,
      untranslated: ['title', 'description'],
    });
  });

  it('does not report a missing description as untranslated when the listing has none', () => {
    const view = viewTexts(listing({}, null), 'de');
    expect(view.description).toBeNull();
    expect(view.untranslated).toEqual(['title']);
  });

  it('shows a language’s own text, and only that language’s highlights', () => {
    // Prepare
    const l = listing({
      de: { title: 'Helle Wohnung', description: 'Hell', highlights: ['Licht'] },
      es: { highlights: ['Luz'] },
    });
    // Act
    const de = viewTexts(l, 'de');
    const en = viewTexts(l, 'en');
    // Assess
    expect(de).toMatchObject({
      title: 'Helle Wohnung',
      description: 'Hell',
      highlights: ['Licht'],
      untranslated: [],
    });
    expect(en.highlights).toEqual([]);
    expect(en.untranslated).toEqual(['title', 'description']);
  });
});

describe('clientWritten', () => {
  it('always protects the source title and description, plus every field a client wrote', () => {
    // Prepare
    const texts: ListingTexts = {
      es: { highlights: ['Luz'], clientFields: ['highlights'] },
      de: { title: 'Titel', clientFields: ['title'] },
      en: { title: 'AI title', highlights: ['AI'] },
    };
    // Act
    const written = clientWritten(texts, 'es');
    // Assess
    expect(written).toEqual({
      es: { title: true, description: true, highlights: true },
      de: { title: true },
    });
  });
});
