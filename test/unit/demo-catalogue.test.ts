import { readFileSync } from 'node:fs';
import jpeg from 'jpeg-js';
import { describe, expect, it } from 'vitest';
import {
  DEMO_LANGUAGES,
  SAMPLE_LISTINGS,
  sampleBody,
  sampleSeaside,
  sampleText,
} from '../../scripts/local/demo-catalogue.ts';
import { demoPhoto, PHOTO_HEIGHT, PHOTO_WIDTH } from '../../scripts/local/demo-photos.ts';

const places = JSON.parse(readFileSync('scripts/local/demo-places.json', 'utf8')) as { code: string }[];

describe('the demo catalogue', () => {
  it('has two dozen listings across the demo Places, for sale and to rent, some featured', () => {
    expect(SAMPLE_LISTINGS).toHaveLength(24);
    const codes = new Set(places.map((p) => p.code));
    for (const sample of SAMPLE_LISTINGS) expect(codes.has(sample.place), sample.place).toBe(true);
    expect(new Set(SAMPLE_LISTINGS.map((s) => s.place)).size).toBeGreaterThanOrEqual(10);
    expect(new Set(SAMPLE_LISTINGS.map((s) => s.listing))).toEqual(new Set(['sale', 'rent']));
    expect(SAMPLE_LISTINGS.filter((s) => s.featured).length).toBeGreaterThanOrEqual(4);
    expect(new Set(SAMPLE_LISTINGS.map((s) => s.ref)).size).toBe(24);
  });

  it('gives each listing a create body the API accepts, and distinct titles in each language', () => {
    // Act: sampleBody parses with the API's own PropertyCreate schema (throws on a bad field)
    const bodies = SAMPLE_LISTINGS.map((s, i) => sampleBody(s, i));
    // Assess
    expect(bodies.every((b) => b.place_code && b.currency === 'EUR')).toBe(true);
    for (const language of DEMO_LANGUAGES) {
      const titles = SAMPLE_LISTINGS.map((s) => sampleText(s, language).title);
      expect(new Set(titles).size, language).toBe(24);
    }
    expect(sampleText(SAMPLE_LISTINGS[0]!, 'es').title).toBe(
      'Villa de 6 dormitorios con vistas al mar en Golden Mile',
    );
    expect(new Set(SAMPLE_LISTINGS.map((s) => s.written))).toEqual(new Set(DEMO_LANGUAGES));
  });
});

describe('demo photos', () => {
  it('are real JPEGs that decode to the stated size, differ per listing and repeat per input', () => {
    // Act
    const sample = SAMPLE_LISTINGS[1]!;
    const a = demoPhoto({
      listing: 1,
      view: 'facade',
      seaside: sampleSeaside(sample),
      floors: sample.floors,
    });
    const again = demoPhoto({
      listing: 1,
      view: 'facade',
      seaside: sampleSeaside(sample),
      floors: sample.floors,
    });
    const b = demoPhoto({ listing: 2, view: 'garden', seaside: false, floors: 2 });
    // Assess
    expect(a.subarray(0, 3)).toEqual(Buffer.from([0xff, 0xd8, 0xff]));
    const decoded = jpeg.decode(a, { useTArray: true });
    expect([decoded.width, decoded.height]).toEqual([PHOTO_WIDTH, PHOTO_HEIGHT]);
    const distinct = new Set<number>();
    for (let i = 0; i < decoded.data.length; i += 4 * 97) distinct.add(decoded.data[i] as number);
    expect(distinct.size).toBeGreaterThan(40); // a picture, not a flat colour
    expect(again.equals(a)).toBe(true);
    expect(b.equals(a)).toBe(false);
  });
});
