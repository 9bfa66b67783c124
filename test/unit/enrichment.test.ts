import { describe, expect, it } from 'vitest';
import {
  costUsd,
  EnrichmentOutput,
  enrichmentTriggered,
  MAX_HIGHLIGHTS,
  mergeEnrichment,
  retryDelaySeconds,
  SEO_DESCRIPTION_MAX,
  spendMonth,
  statusOnTrigger,
  truncateText,
} from '../../functions/domain/enrichment.ts';
import type { ListingTexts } from '../../functions/domain/listing-text.ts';

const change = (over: Partial<Parameters<typeof enrichmentTriggered>[0]> = {}) => ({
  created: false,
  aiEnrichment: true,
  wasLive: true,
  isLive: true,
  textChanged: false,
  ...over,
});

describe('enrichmentTriggered', () => {
  it('queues on create, live or not', () => {
    expect(enrichmentTriggered(change({ created: true, wasLive: false, isLive: false }))).toBe(true);
    expect(enrichmentTriggered(change({ created: true, wasLive: false, isLive: true }))).toBe(true);
  });

  it('queues on an edit that puts the listing on the website', () => {
    expect(enrichmentTriggered(change({ wasLive: false, isLive: true }))).toBe(true);
  });

  it('queues on a text change while live, not while a draft, and not for other edits', () => {
    expect(enrichmentTriggered(change({ textChanged: true }))).toBe(true);
    expect(enrichmentTriggered(change({ wasLive: false, isLive: false, textChanged: true }))).toBe(false);
    expect(enrichmentTriggered(change())).toBe(false);
    expect(enrichmentTriggered(change({ wasLive: true, isLive: false, textChanged: true }))).toBe(false);
  });

  it('never queues when ai_enrichment is false', () => {
    expect(enrichmentTriggered(change({ aiEnrichment: false, created: true }))).toBe(false);
    expect(enrichmentTriggered(change({ aiEnrichment: false, wasLive: false }))).toBe(false);
    expect(enrichmentTriggered(change({ aiEnrichment: false, textChanged: true }))).toBe(false);
  });
});

describe('statusOnTrigger', () => {
  it('is off while the switch is off, whatever the spend', () => {
    expect(statusOnTrigger({ enabled: false, monthlyLimitUsd: null, spentThisMonthUsd: 0 })).toBe('off');
    expect(statusOnTrigger({ enabled: false, monthlyLimitUsd: 1, spentThisMonthUsd: 5 })).toBe('off');
  });

  it('is paused once the month’s spend reaches the ceiling', () => {
    expect(statusOnTrigger({ enabled: true, monthlyLimitUsd: 10, spentThisMonthUsd: 10 })).toBe('paused');
    expect(statusOnTrigger({ enabled: true, monthlyLimitUsd: 10, spentThisMonthUsd: 12 })).toBe('paused');
    expect(statusOnTrigger({ enabled: true, monthlyLimitUsd: 0, spentThisMonthUsd: 0 })).toBe('paused');
  });

  it('is pending below the ceiling or without one', () => {
    expect(statusOnTrigger({ enabled: true, monthlyLimitUsd: 10, spentThisMonthUsd: 9.99 })).toBe('pending');
    expect(statusOnTrigger({ enabled: true, monthlyLimitUsd: null, spentThisMonthUsd: 1e6 })).toBe('pending');
  });
});

describe('retryDelaySeconds', () => {
  it('backs off after attempts 1 to 3 and gives up after the fourth', () => {
    const delays = [1, 2, 3].map(retryDelaySeconds) as number[];
    expect(delays.every((d) => typeof d === 'number' && d > 0)).toBe(true);
    expect(delays[1]).toBeGreaterThan(delays[0] as number);
    expect(delays[2]).toBeGreaterThan(delays[1] as number);
    expect(retryDelaySeconds(4)).toBeUndefined();
    expect(retryDelaySeconds(5)).toBeUndefined();
  });
});

describe('costUsd and spendMonth', () => {
  it('prices tokens per thousand and names the UTC month', () => {
    expect(costUsd({ inputTokens: 2000, outputTokens: 1000 }, { input: 0.003, output: 0.015 })).toBeCloseTo(
      0.021,
    );
    expect(spendMonth(new Date('2026-11-30T23:59:59Z'))).toBe('2026-11');
    expect(spendMonth(new Date('2026-12-01T00:00:00+01:00'))).toBe('2026-11');
  });
});

describe('truncateText', () => {
  it('keeps short text, and cuts long text at a word within the limit with an ellipsis', () => {
    expect(truncateText('  short   text ', 160)).toBe('short text');
    const cut = truncateText('word '.repeat(60), SEO_DESCRIPTION_MAX);
    expect(cut.length).toBeLessThanOrEqual(SEO_DESCRIPTION_MAX);
    expect(cut.endsWith('word…')).toBe(true);
  });
});

describe('EnrichmentOutput', () => {
  const lang = { title: null, description: null, highlights: ['a'], seo_description: 'seo' };
  it('accepts null translations and refuses a seventh highlight or an SEO text over 160 characters', () => {
    expect(EnrichmentOutput.safeParse({ languages: { en: lang } }).success).toBe(true);
    const seven = { ...lang, highlights: Array.from({ length: MAX_HIGHLIGHTS + 1 }, (_, i) => `h${i}`) };
    expect(EnrichmentOutput.safeParse({ languages: { en: seven } }).success).toBe(false);
    const long = { ...lang, seo_description: 'x'.repeat(SEO_DESCRIPTION_MAX + 1) };
    expect(EnrichmentOutput.safeParse({ languages: { en: long } }).success).toBe(false);
  });
});

describe('mergeEnrichment', () => {
  const generated = (title: string | null, description: string | null, highlights: string[]) => ({
    title,
    description,
    highlights,
    seo_description: `seo ${title ?? 'x'}`,
  });

  it('never writes the source language’s title or description', () => {
    // Act
    const merged = mergeEnrichment({}, 'es', {
      languages: { es: generated('Otro título', 'Otra descripción', ['Luz']) },
    });
    // Assess
    expect(merged.es?.title).toBeUndefined();
    expect(merged.es?.description).toBeUndefined();
    expect(merged.es?.highlights).toEqual(['Luz']);
    expect(merged.es?.seoDescription).toBe('seo Otro título');
  });

  it('never overwrites text a client wrote, and fills what nobody wrote', () => {
    // Prepare
    const texts: ListingTexts = {
      de: { title: 'Mein Titel', highlights: ['Meins'], clientFields: ['title', 'highlights'] },
      en: { title: 'Old AI title' },
    };
    const snapshot = structuredClone(texts);
    // Act
    const merged = mergeEnrichment(texts, 'es', {
      languages: {
        de: generated('KI Titel', 'KI Beschreibung', ['KI']),
        en: generated('AI title', 'AI description', ['AI']),
      },
    });
    // Assess
    expect(texts).toEqual(snapshot);
    expect(merged.de).toMatchObject({
      title: 'Mein Titel',
      description: 'KI Beschreibung',
      highlights: ['Meins'],
      clientFields: ['title', 'highlights'],
    });
    expect(merged.en).toMatchObject({ title: 'AI title', description: 'AI description', highlights: ['AI'] });
  });

  it('leaves a field alone when the provider has no real translation (null) or no highlights', () => {
    // Prepare
    const texts: ListingTexts = { de: { title: 'Früher', highlights: ['Alt'] } };
    // Act
    const merged = mergeEnrichment(texts, 'es', { languages: { de: generated(null, null, []) } });
    // Assess
    expect(merged.de).toMatchObject({ title: 'Früher', highlights: ['Alt'] });
    expect(merged.de?.description).toBeUndefined();
  });
});
