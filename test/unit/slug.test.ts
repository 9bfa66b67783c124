import { describe, expect, it } from 'vitest';
import { slugCandidate, slugify } from '../../functions/domain/slug.ts';

describe('slugify', () => {
  it('folds accents and joins lowercase words with hyphens', () => {
    expect(slugify('Ático en Málaga')).toBe('atico-en-malaga');
    expect(slugify('Çà et là, São Paulo!')).toBe('ca-et-la-sao-paulo');
    expect(slugify('Crème Brûlée Ñandú')).toBe('creme-brulee-nandu');
  });

  it('collapses punctuation and trims hyphens at both ends', () => {
    expect(slugify('  --Hello,   World!!--  ')).toBe('hello-world');
    expect(slugify('3 bed / 2 bath @ 250.000€')).toBe('3-bed-2-bath-250-000');
  });

  it("falls back to 'listing' when nothing is left", () => {
    expect(slugify('')).toBe('listing');
    expect(slugify('   ')).toBe('listing');
    expect(slugify('!!!')).toBe('listing');
    expect(slugify('東京')).toBe('listing');
  });

  it('cuts at maxLength without leaving a trailing hyphen', () => {
    const slug = slugify('aaaa bbbb cccc', 5);
    expect(slug).toBe('aaaa');
    expect(slugify('word '.repeat(40)).length).toBeLessThanOrEqual(80);
    expect(slugify('word '.repeat(40))).not.toMatch(/-$/);
  });

  it('only ever yields [a-z0-9-]', () => {
    for (const text of ['Ωmega Ψ', 'tab\tnew\nline', 'ﬁnca ½ acre', 'Ünïcödé']) {
      expect(slugify(text)).toMatch(/^[a-z0-9]+(-[a-z0-9]+)*$/);
    }
  });
});

describe('slugCandidate', () => {
  it('is the base first, then base-2, base-3…', () => {
    expect(slugCandidate('villa', 1)).toBe('villa');
    expect(slugCandidate('villa', 2)).toBe('villa-2');
    expect(slugCandidate('villa', 3)).toBe('villa-3');
  });

  it('treats attempts below 1 as the first', () => {
    expect(slugCandidate('villa', 0)).toBe('villa');
  });
});
