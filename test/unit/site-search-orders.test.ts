import { describe, expect, it } from 'vitest';
import {
  foldText,
  matches,
  type SiteFilters,
  type SiteListing,
  searchableText,
  similarListings,
  sortListings,
} from '../../functions/domain/site-search.ts';
import {
  type CatalogueListing,
  decodeSnapshot,
  encodeSnapshot,
  snapshotEntryParses,
} from '../../functions/services/catalogue-snapshot.ts';
import { type SiteSearch, searchCatalogue } from '../../functions/services/site.ts';
import {
  applyListings,
  type Catalogue,
  catalogueFromSnapshot,
  emptyCatalogue,
  heldBytes,
  locationsOf,
  snapshotOf,
} from '../../functions/services/site-catalogue.ts';
import { forgetLocationBits, WordIndex } from '../../functions/services/site-search-index.ts';

/** A small deterministic generator (mulberry32): the same catalogue on every run. */
function seeded(seed: number) {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const PLACES = [
  [{ code: 'ES', name: 'Spain', kind: 'country' }],
  [
    { code: 'ES', name: 'Spain', kind: 'country' },
    { code: 'ES-MA', name: 'Málaga', kind: 'province' },
  ],
  [
    { code: 'ES', name: 'Spain', kind: 'country' },
    { code: 'ES-MA', name: 'Málaga', kind: 'province' },
    { code: 'ES-MA-MAR', name: 'Marbella', kind: 'municipality' },
  ],
];

function seededListings(count: number, seed: number): CatalogueListing[] {
  const random = seeded(seed);
  const pick = <T>(values: readonly T[]) => values[Math.floor(random() * values.length)] as T;
  return Array.from({ length: count }, (_, i) => {
    const placePath = pick(PLACES);
    // Few distinct prices and times, so ties (broken newest first, then by id) are common.
    const price = pick([undefined, '100000', '250000', '250000.50', '99000', '1000000']);
    const rentPrice = pick([undefined, '900', '1500', '1500']);
    const createdAt = new Date(Date.UTC(2026, 0, 1 + Math.floor(random() * 5))).toISOString();
    return {
      id: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
      tenantId: 't1',
      slug: `listing-${i}`,
      title: `Listing ${i} ${pick(['sea view', 'garden', 'penthouse'])}`,
      listingType: pick(['sale', 'rent', undefined] as const),
      propertyType: pick(['apartment', 'villa']),
      price,
      rentPrice,
      bedrooms: Math.floor(random() * 5),
      amenities: pick([undefined, ['pool'], ['pool', 'garden'], ['sea_view']]),
      isFeatured: random() < 0.2,
      placeCode: placePath[placePath.length - 1]?.code,
      placePath,
      createdAt,
      updatedAt: createdAt,
    } as unknown as CatalogueListing;
  });
}

function catalogueOf(listings: CatalogueListing[]): Catalogue {
  const c = emptyCatalogue('t1');
  applyListings(c, listings);
  return c;
}

/** The search as it was: every hit filtered from the catalogue, then sorted. */
function bruteForce(c: Catalogue, s: SiteSearch, filters: SiteFilters) {
  // q checked here on its own: every folded word of it in the listing's folded text.
  const words = foldText(filters.q ?? '')
    .split(/\s+/)
    .filter(Boolean);
  const text = (l: SiteListing) => searchableText(l);
  const hits = [...c.listings.values()].filter(
    (l) => matches(l, { ...filters, q: undefined }, text) && words.every((w) => text(l).includes(w)),
  );
  const ids = sortListings(hits, s.sort, s.listing).map((l) => l.id);
  return { ids: ids.slice(s.offset, s.offset + s.limit), total: ids.length };
}

const SEARCHES: SiteSearch[] = [
  { sort: 'newest', limit: 500, offset: 0 },
  { sort: 'price_asc', limit: 500, offset: 0 },
  { sort: 'price_desc', limit: 500, offset: 0 },
  { sort: 'price_asc', listing: 'rent', limit: 500, offset: 0 },
  { sort: 'price_desc', listing: 'sale', beds: 2, limit: 500, offset: 0 },
  { sort: 'price_asc', listing: 'sale', min_price: '99000', max_price: '250000', limit: 500, offset: 0 },
  { sort: 'newest', q: 'Sea view', limit: 500, offset: 0 },
  { sort: 'price_asc', q: 'penthouse 1', limit: 500, offset: 0 },
  { sort: 'newest', q: 'GARDEN', limit: 500, offset: 0 },
  { sort: 'newest', q: 'ting 1', limit: 500, offset: 0 },
  { sort: 'newest', q: 'malaga', limit: 20, offset: 10 },
  { sort: 'price_desc', type: 'villa', amenities: ['pool'], limit: 500, offset: 0 },
  { sort: 'newest', featured: true, location: 'malaga', limit: 500, offset: 0 },
  { sort: 'price_asc', location: 'marbella', min_price: '100000.25', limit: 7, offset: 3 },
  { sort: 'newest', type: 'castle', limit: 500, offset: 0 },
  { sort: 'newest', location: 'atlantis', limit: 500, offset: 0 },
];

const filtersOf = (c: Catalogue, s: SiteSearch): SiteFilters => ({
  listing: s.listing,
  type: s.type,
  amenities: s.amenities,
  featured: s.featured,
  location:
    s.location === undefined
      ? undefined
      : (l) =>
          locationsOf(c)
            .find((x) => x.slug === s.location)
            ?.listingIds.has(l.id) ?? false,
  minPrice: s.min_price,
  maxPrice: s.max_price,
  beds: s.beds,
  q: s.q,
});

describe('site search over cached orders', () => {
  it('lists exactly what a brute-force filter and sort of the seeded catalogue lists', () => {
    // Prepare
    const c = catalogueOf(seededListings(400, 25));

    for (const s of SEARCHES) {
      // Act
      const answer = searchCatalogue(c, s);

      // Assess
      const expected = bruteForce(c, s, filtersOf(c, s));
      expect(answer.items.map((l) => l.id)).toEqual(expected.ids);
      expect(answer.total).toBe(expected.total);
    }
  });

  it('follows a catch-up that changes prices, adds and archives listings', () => {
    // Prepare
    const listings = seededListings(400, 7);
    const c = catalogueOf(listings);
    for (const s of SEARCHES) searchCatalogue(c, s);
    const later = '2026-02-01T00:00:00.000Z';
    const repriced = listings.slice(0, 10).map((l) => ({
      ...l,
      title: `Renamed ${l.title} malaga`,
      price: '1',
      rentPrice: '1',
      updatedAt: later,
    }));
    const added = seededListings(405, 9)
      .slice(400)
      .map((l) => ({ ...l, createdAt: '2026-01-03T12:00:00.000Z', updatedAt: later }));
    const archived = listings.slice(20, 25).map((l) => ({ ...l, archivedAt: later, updatedAt: later }));

    // Act
    applyListings(c, [...repriced, ...added, ...archived]);

    // Assess
    expect([...c.listings.values()].map((l) => l.id)).toEqual(
      sortListings([...c.listings.values()], 'newest', undefined).map((l) => l.id),
    );
    for (const s of SEARCHES) {
      const answer = searchCatalogue(c, s);
      const expected = bruteForce(c, s, filtersOf(c, s));
      expect(answer.items.map((l) => l.id)).toEqual(expected.ids);
      expect(answer.total).toBe(expected.total);
    }
  });

  it('counts the search columns and word index in the bytes held, and drops the columns on a change', () => {
    // Prepare
    const listings = seededListings(50, 3);
    const c = catalogueOf(listings);
    const before = heldBytes(c);

    // Act
    searchCatalogue(c, { sort: 'price_asc', listing: 'sale', limit: 10, offset: 0 });
    const withColumns = heldBytes(c);
    searchCatalogue(c, { sort: 'newest', q: 'garden', limit: 10, offset: 0 });
    const withWords = heldBytes(c);
    applyListings(c, [
      {
        ...listings[0],
        title: 'An entirely new title',
        price: '5',
        updatedAt: '2026-03-01T00:00:00.000Z',
      } as CatalogueListing,
    ]);

    // Assess
    expect(withColumns).toBeGreaterThanOrEqual(before + 50 * 36 + 50 * 4);
    expect(withWords).toBeGreaterThan(withColumns);
    expect(c.columns).toBeUndefined();
    expect(c.words?.size).toBe(50);
    // The changed listing left its old words: the index holds what one built afresh holds.
    expect(c.words?.bytes).toBe(new WordIndex(c.listings.values()).bytes);
  });

  it('keeps its bytes when the locations are rebuilt (Areas re-read) and searched again', () => {
    // Prepare
    const c = catalogueOf(seededListings(100, 4));
    const search: SiteSearch = { sort: 'newest', location: 'malaga', limit: 10, offset: 0 };
    const first = searchCatalogue(c, search);
    const once = heldBytes(c);

    // Act: what siteCatalogue does when it re-reads Areas and Agents
    c.locations = undefined;
    forgetLocationBits(c.columns as NonNullable<typeof c.columns>);
    const again = searchCatalogue(c, search);

    // Assess
    expect(again.total).toBe(first.total);
    expect(heldBytes(c)).toBe(once);
  });

  it('sorts and filters a snapshot-loaded catalogue without parsing any entry', () => {
    // Prepare
    const decoded = decodeSnapshot('t1', encodeSnapshot(snapshotOf(catalogueOf(seededListings(300, 5)))));
    const c = catalogueFromSnapshot(decoded.snapshot, decoded.textLength);
    const parsedBefore = snapshotEntryParses();

    // Act
    const finding = SEARCHES.filter((s) => !s.q && s.type !== 'castle' && s.location !== 'atlantis');
    const pages = finding.map((s) => searchCatalogue(c, s));
    similarListings([...c.listings.values()][0] as CatalogueListing, c.listings.values(), 6);

    // Assess
    expect(pages.every((p) => p.total > 0)).toBe(true);
    expect(snapshotEntryParses()).toBe(parsedBefore);
  });

  it('finds the same similar listings as sorting every candidate', () => {
    // Prepare
    const listings = seededListings(300, 11);
    const byNearness = (target: CatalogueListing, limit: number) => {
      const path = (l: CatalogueListing) => (l.placePath ?? []).map((p) => p.code);
      const price = (l: CatalogueListing) => (l.listingType === 'rent' ? l.rentPrice : l.price);
      return listings
        .filter((l) => l.id !== target.id && l.listingType === target.listingType)
        .map((l) => {
          let shared = 0;
          while (path(l)[shared] !== undefined && path(l)[shared] === path(target)[shared]) shared++;
          const gap =
            price(l) === undefined || price(target) === undefined
              ? Number.POSITIVE_INFINITY
              : Math.abs(Number(price(l)) - Number(price(target)));
          return { l, shared, gap };
        })
        .sort(
          (a, b) =>
            b.shared - a.shared ||
            a.gap - b.gap ||
            (a.l.createdAt < b.l.createdAt ? 1 : a.l.createdAt > b.l.createdAt ? -1 : 0) ||
            (a.l.id < b.l.id ? -1 : 1),
        )
        .slice(0, limit)
        .map((s) => s.l.id);
    };

    for (const target of listings.slice(0, 30)) {
      for (const limit of [0, 3, 6]) {
        // Act
        const similar = similarListings(target, listings, limit).map((l) => l.id);

        // Assess
        expect(similar).toEqual(byNearness(target, limit));
      }
    }
  });
});
