/**
 * The catalogue snapshot's format 2 (services/catalogue-snapshot.ts): a header of the indexed fields
 * per listing, parsed at load, and each listing's other fields parsed only when read.
 */
import { gunzipSync, gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { toSiteListingOut } from '../../functions/contract/site.ts';
import type { ListingRecord } from '../../functions/data/listings.ts';
import {
  CATALOGUE_SNAPSHOT_VERSION,
  type CatalogueListing,
  CatalogueSnapshotUnreadableError,
  compactListing,
  decodeSnapshot,
  encodeSnapshot,
  snapshotEntryParses,
} from '../../functions/services/catalogue-snapshot.ts';

const TENANT = 'tenant-format';

function listing(n: number, extra: Partial<ListingRecord> = {}): ListingRecord {
  const at = new Date(Date.UTC(2026, 0, 1) + n * 60_000).toISOString();
  return {
    tenantId: TENANT,
    id: `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`,
    slug: `villa-${n}`,
    title: `Villa número ${n}`,
    description: 'Vistas al mar, piscina — 海の見える家',
    listingType: n % 2 ? 'sale' : 'rent',
    price: n % 2 ? String(100_000 + n) : undefined,
    rentPrice: n % 2 ? undefined : String(900 + n),
    currency: 'EUR',
    propertyType: 'villa',
    bedrooms: n % 5,
    bathrooms: '2.5',
    amenities: n % 3 ? ['pool', 'terrace'] : undefined,
    isFeatured: n % 4 === 0,
    placeCode: 'ES-MA-MAR',
    placePath: [
      { code: 'ES', name: 'Spain', kind: 'country' },
      { code: 'ES-MA-MAR', name: 'Marbella', kind: 'municipality' },
    ],
    texts: { de: { title: `Villa Nummer ${n}`, description: 'Meerblick' } },
    images: [{ id: `img-${n}`, url: `https://cdn.example/${n}.jpg`, sortOrder: 0, isPrimary: true }],
    internalRef: `REF-${n}`,
    priceHistory: [{ price: '1', changedAt: at }],
    sourceLanguage: 'es',
    createdAt: at,
    updatedAt: at,
    ...extra,
  } as unknown as ListingRecord;
}

const snapshotOf = (listings: ListingRecord[]) => ({
  version: CATALOGUE_SNAPSHOT_VERSION,
  tenantId: TENANT,
  watermark: listings.at(-1)?.updatedAt,
  builtAt: '2026-11-26T00:00:00.000Z',
  listings,
});

describe('catalogue snapshot format 2', () => {
  it('round-trips every listing: the same fields as the compact listing, absent ones absent', () => {
    // Prepare
    const listings = Array.from({ length: 12 }, (_, n) => listing(n));
    // Act
    const { snapshot } = decodeSnapshot(TENANT, encodeSnapshot(snapshotOf(listings)));
    // Assess
    expect(snapshot.listings.map((l) => JSON.parse(JSON.stringify(l)))).toEqual(
      listings.map((l) => JSON.parse(JSON.stringify(compactListing(l)))),
    );
    for (const [n, entry] of snapshot.listings.entries()) {
      const original = listings[n] as ListingRecord;
      expect(entry.rentPrice).toBe(original.rentPrice);
      expect(entry.amenities).toEqual(original.amenities);
      expect(entry.title).toBe(original.title);
      expect(entry.images).toEqual(original.images);
      expect(entry).not.toHaveProperty('internalRef');
      expect(entry).not.toHaveProperty('priceHistory');
    }
  });

  it('parses no entry at load, then one entry once when an answer presents it', () => {
    // Prepare
    const listings = Array.from({ length: 50 }, (_, n) => listing(n));
    const body = encodeSnapshot(snapshotOf(listings));
    const before = snapshotEntryParses();
    // Act: a load, then what searches read (indexed fields)
    const { snapshot } = decodeSnapshot(TENANT, body);
    const sale = snapshot.listings.filter((l) => l.listingType === 'sale' && (l.bedrooms ?? 0) >= 1);
    // Assess
    expect(sale.length).toBeGreaterThan(0);
    expect(snapshotEntryParses()).toBe(before);
    // Act: presenting one listing reads its texts and gallery: one parse
    const entry = snapshot.listings[3] as CatalogueListing;
    const shown = toSiteListingOut(entry as ListingRecord, 'de');
    // Assess
    expect(snapshotEntryParses()).toBe(before + 1);
    expect(shown).toEqual(
      toSiteListingOut(compactListing(listings[3] as ListingRecord) as ListingRecord, 'de'),
    );
  });

  it('re-encodes loaded entries byte for byte without parsing them', () => {
    // Prepare
    const listings = Array.from({ length: 20 }, (_, n) => listing(n));
    const body = encodeSnapshot(snapshotOf(listings));
    const { snapshot } = decodeSnapshot(TENANT, body);
    const before = snapshotEntryParses();
    // Act
    const again = encodeSnapshot(snapshot);
    // Assess
    expect(gunzipSync(again).equals(gunzipSync(body))).toBe(true);
    expect(snapshotEntryParses()).toBe(before);
  });

  it('refuses a snapshot of format 1, of another Tenant, or whose entries are cut short', () => {
    // Prepare
    const listings = [listing(1), listing(2)];
    const v1 = gzipSync(JSON.stringify({ ...snapshotOf(listings), version: 1 }));
    const whole = gunzipSync(encodeSnapshot(snapshotOf(listings)));
    const cut = gzipSync(whole.subarray(0, whole.length - 10));
    // Act / Assess
    expect(() => decodeSnapshot(TENANT, v1)).toThrow(CatalogueSnapshotUnreadableError);
    expect(() => decodeSnapshot('another', encodeSnapshot(snapshotOf(listings)))).toThrow(/another tenant/);
    expect(() => decodeSnapshot(TENANT, cut)).toThrow(/malformed listings/);
    expect(() => decodeSnapshot(TENANT, Buffer.from('not gzip'))).toThrow(CatalogueSnapshotUnreadableError);
  });
});
