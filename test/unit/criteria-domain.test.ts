import { describe, expect, it } from 'vitest';
import {
  type Criteria,
  criteriaProblems,
  hasCriterion,
  type ListingFacts,
  matchReasons,
  newestFirst,
  numberToDecimal,
} from '../../functions/domain/criteria.ts';

const none: Criteria = { propertyTypes: [], amenities: [], placeCodes: [], areaIds: [] };
const criteria = (c: Partial<Criteria>): Criteria => ({ ...none, ...c });
const NO_AREAS = new Set<string>();

/** A live sale listing in ES > ES-MA > ES-MA-MBL. */
const listing = (l: Partial<ListingFacts> = {}): ListingFacts => ({
  listingType: 'sale',
  price: '450000',
  currency: 'EUR',
  propertyType: 'villa',
  bedrooms: 3,
  bathrooms: '2.5',
  amenities: ['pool', 'garden'],
  placeCode: 'ES-MA-MBL',
  placePath: [{ code: 'ES' }, { code: 'ES-MA' }, { code: 'ES-MA-MBL' }],
  ...l,
});

describe('numberToDecimal', () => {
  it.each([
    [250000, '250000'],
    [1500.5, '1500.5'],
    [0, '0'],
    [1e21, '1000000000000000000000'],
    [1e-7, '0.0000001'],
    [-5, '-5'],
  ])('writes %j as %j, never with an exponent', (value, expected) => {
    // Act / Assess
    expect(numberToDecimal(value)).toBe(expected);
  });
});

describe('criteriaProblems', () => {
  it('asks for a currency when a price bound is set', () => {
    // Act
    const problems = criteriaProblems({ minPrice: '100' });
    // Assess
    expect(problems.map((p) => p.field)).toEqual(['currency']);
  });

  it('refuses min_price above max_price, comparing decimals exactly', () => {
    // Act / Assess
    expect(criteriaProblems({ minPrice: '100.01', maxPrice: '100.001', currency: 'EUR' })).toEqual([
      expect.objectContaining({ field: 'max_price' }),
    ]);
    expect(criteriaProblems({ minPrice: '100', maxPrice: '100.00', currency: 'EUR' })).toEqual([]);
  });

  it('accepts a currency alone, and no bounds at all', () => {
    // Act / Assess
    expect(criteriaProblems({ currency: 'EUR' })).toEqual([]);
    expect(criteriaProblems({})).toEqual([]);
  });
});

describe('hasCriterion', () => {
  it('does not count notes or a lone currency', () => {
    // Act / Assess
    expect(hasCriterion(undefined)).toBe(false);
    expect(hasCriterion(criteria({ notes: 'sea view', currency: 'EUR' }))).toBe(false);
    expect(hasCriterion(criteria({ minBeds: 0 }))).toBe(true);
    expect(hasCriterion(criteria({ areaIds: ['a'] }))).toBe(true);
  });
});

describe('matchReasons', () => {
  it('names every criterion met, in a fixed order', () => {
    // Prepare
    const c = criteria({
      listingType: 'sale',
      minPrice: '400000',
      maxPrice: '450000.00',
      currency: 'EUR',
      minBeds: 3,
      minBaths: '2.5',
      propertyTypes: ['apartment', 'villa'],
      amenities: ['pool'],
      placeCodes: ['ES-MA'],
      areaIds: ['area-1'],
    });
    // Act
    const reasons = matchReasons(c, listing(), new Set(['area-1']));
    // Assess
    expect(reasons).toEqual([
      'listing_type',
      'price',
      'min_beds',
      'min_baths',
      'property_types',
      'amenities',
      'place_codes',
      'area_ids',
    ]);
  });

  it.each<[string, Partial<Criteria>, Partial<ListingFacts>]>([
    ['listing type', { listingType: 'rent' }, {}],
    ['price below min', { minPrice: '450000.01', currency: 'EUR' }, {}],
    ['price above max', { maxPrice: '449999.99', currency: 'EUR' }, {}],
    ['another currency', { maxPrice: '900000', currency: 'USD' }, {}],
    ['no price', { maxPrice: '900000', currency: 'EUR' }, { price: undefined }],
    ['bedrooms', { minBeds: 4 }, {}],
    ['no bedrooms', { minBeds: 0 }, { bedrooms: undefined }],
    ['bathrooms', { minBaths: '2.6' }, {}],
    ['property type', { propertyTypes: ['apartment'] }, {}],
    ['a missing amenity', { amenities: ['pool', 'gym'] }, {}],
    ['place', { placeCodes: ['FR'] }, {}],
    ['a sibling place', { placeCodes: ['ES-MA-NRJ'] }, {}],
    ['area', { areaIds: ['area-2'] }, {}],
  ])('refuses a listing that misses on %s', (_what, c, l) => {
    // Act / Assess
    expect(matchReasons(criteria(c), listing(l), new Set(['area-1']))).toBeNull();
  });

  it('compares the rent of a rental and the sale price otherwise', () => {
    // Prepare
    const rental = listing({ listingType: 'rent', price: undefined, rentPrice: '1800' });
    // Act / Assess
    expect(matchReasons(criteria({ maxPrice: '2000', currency: 'eur' }), rental, NO_AREAS)).toEqual([
      'price',
    ]);
    expect(matchReasons(criteria({ minPrice: '2000', currency: 'EUR' }), rental, NO_AREAS)).toBeNull();
    expect(
      matchReasons(criteria({ listingType: 'rent', maxPrice: '2000', currency: 'EUR' }), listing(), NO_AREAS),
    ).toBeNull();
  });

  it('matches a Place, its ancestors and nothing else', () => {
    // Act / Assess
    for (const code of ['ES', 'ES-MA', 'ES-MA-MBL']) {
      expect(matchReasons(criteria({ placeCodes: ['XX', code] }), listing(), NO_AREAS)).toEqual([
        'place_codes',
      ]);
    }
  });

  it('never matches a draft or an archived listing', () => {
    // Act / Assess
    expect(matchReasons(criteria({ minBeds: 1 }), listing({ placeCode: undefined }), NO_AREAS)).toBeNull();
    expect(
      matchReasons(criteria({ minBeds: 1 }), listing({ archivedAt: '2026-01-01T00:00:00Z' }), NO_AREAS),
    ).toBeNull();
  });

  it('compares property types case-insensitively', () => {
    // Act / Assess
    expect(
      matchReasons(criteria({ propertyTypes: ['villa'] }), listing({ propertyType: 'Villa' }), NO_AREAS),
    ).toEqual(['property_types']);
  });
});

describe('newestFirst', () => {
  it('orders by creation time descending, then id', () => {
    // Prepare
    const items = [
      { id: 'a', createdAt: '2026-01-01T00:00:00.000Z' },
      { id: 'c', createdAt: '2026-01-02T00:00:00.000Z' },
      { id: 'b', createdAt: '2026-01-02T00:00:00.000Z' },
    ];
    // Act
    const sorted = [...items].sort(newestFirst).map((i) => i.id);
    // Assess
    expect(sorted).toEqual(['c', 'b', 'a']);
  });
});
