import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { toPropertyOut } from '../../functions/contract/properties.ts';
import { dynamo, tableName } from '../../functions/data/client.ts';
import { Listing } from '../../functions/data/entities/listing.ts';
import { saveGallery } from '../../functions/data/listing-images.ts';
import { getListing, PRICE_HISTORY_KEPT } from '../../functions/data/listings.ts';
import { getTenant, type TenantRecord } from '../../functions/data/tenants.ts';
import type { GalleryImage } from '../../functions/domain/images.ts';
import type { ListingTexts } from '../../functions/domain/listing-text.ts';
import {
  createListing,
  editListing,
  type ListingWriter,
  migrateListings,
  readListing,
} from '../../functions/services/listings.ts';
import { createTenantFromAdmin } from '../../functions/services/tenants.ts';
import { createTestPlaces, unique } from '../support/factories.ts';

/** Site Languages of the largest listing's Tenant: 12 texts of 60 KB (a 3-byte script) are 720 KB. */
const LANGUAGES = ['en', 'es', 'fr', 'de', 'it', 'pt', 'nl', 'sv', 'pl', 'ja', 'zh', 'ko'];
/** A character of a 3-byte UTF-8 script: the longest text the API accepts in bytes. */
const WIDE = '漢';
const DYNAMODB_ITEM_LIMIT = 400 * 1024;

let placeCode: string;
beforeAll(async () => {
  placeCode = (await createTestPlaces()).town.code;
});

async function newTenant(languages: string[]): Promise<TenantRecord> {
  const created = await createTenantFromAdmin({ slug: unique('big'), name: 'Big Realty', languages });
  return (await getTenant(created.tenantId))!;
}

const writer = (tenant: TenantRecord): ListingWriter => ({ tenant, name: 'crm-key', via: 'api' });

/** A language's text at every maximum the API accepts. */
const longestText = (language: string) => ({
  title: `${language} ${WIDE.repeat(250)}`,
  description: WIDE.repeat(20_000),
  highlights: Array.from({ length: 6 }, () => WIDE.repeat(120)),
});

/** The stored items of a listing's partition with their sizes (JSON bytes: about DynamoDB's count). */
async function storedItems(tenantId: string, id: string) {
  const { Items = [] } = await dynamo().send(
    new QueryCommand({
      TableName: tableName(),
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': `t#${tenantId}#property#${id}` },
      ConsistentRead: true,
    }),
  );
  return Items.map((item) => ({
    sk: String(item.sk),
    bytes: Buffer.byteLength(JSON.stringify(item)),
    item,
  }));
}

function photo(tenantId: string, propertyId: string, n: number): GalleryImage {
  const id = crypto.randomUUID();
  const key = `t/${tenantId}/p/${propertyId}/${id}.jpg`;
  return {
    id,
    key,
    url: `https://photos.example.com/${key}`,
    width: 4000,
    height: 3000,
    contentType: 'image/jpeg',
    sizeBytes: 19_000_000,
    sortOrder: n,
    isPrimary: n === 0,
    createdAt: new Date(Date.UTC(2026, 0, 1, 0, 0, n)).toISOString(),
    importId: crypto.randomUUID(),
    uploadKey: `uploads/${tenantId}/${crypto.randomUUID()}`,
  };
}

describe('bounded listing items', () => {
  it('keeps the largest listing the API accepts (every language at maximum length, 100 photos, many price changes) under the item limit, and edits it', async () => {
    // Prepare: price changes first (they are capped as they come), then every language, then the gallery
    const tenant = await newTenant(LANGUAGES);
    const { record } = await createListing(
      writer(tenant),
      { ...longestText('en'), price: '100000', currency: 'EUR', place_code: placeCode },
      'en',
    );
    const priceChanges = 2 * PRICE_HISTORY_KEPT + 5;
    for (let n = 1; n <= priceChanges; n++) {
      await editListing(writer(tenant), record.id, { price: `${100000 + n}` }, undefined);
    }
    for (const language of LANGUAGES.slice(1)) {
      await editListing(writer(tenant), record.id, longestText(language), language);
    }
    const current = (await getListing(tenant.tenantId, record.id))!;
    const gallery = Array.from({ length: 100 }, (_, n) => photo(tenant.tenantId, record.id, n));
    expect(await saveGallery(current, gallery, 'crm-key', new Date().toISOString())).toBe('ok');
    // Act
    const edited = await editListing(
      writer(tenant),
      record.id,
      { price: '250000', description: `${WIDE.repeat(19_999)}!` },
      'ja',
    );
    // Assess
    expect(edited.changed).toBe(true);
    const items = await storedItems(tenant.tenantId, record.id);
    console.info(
      `largest listing, item sizes (KB): ${items.map((i) => `${i.sk}=${(i.bytes / 1024).toFixed(1)}`).join(' ')}; ` +
        `all items ${(items.reduce((sum, i) => sum + i.bytes, 0) / 1024).toFixed(0)} KB`,
    );
    for (const item of items) expect(item.bytes).toBeLessThan(DYNAMODB_ITEM_LIMIT / 2);
    const listingItem = items.find((i) => i.sk === 'property')!.item;
    expect(listingItem.priceHistory).toHaveLength(PRICE_HISTORY_KEPT);
    expect(listingItem.priceHistory.at(-1)).toMatchObject({ price: '250000' });
    expect(listingItem.textsApart).toEqual([...LANGUAGES.slice(1)].sort());
    // Readers see the listing whole, as before.
    const { property, areas } = await readListing(tenant.tenantId, record.id);
    const shown = toPropertyOut(property, { language: 'ja', areas });
    expect(shown.description).toBe(`${WIDE.repeat(19_999)}!`);
    expect(shown.highlights).toEqual(longestText('ja').highlights);
    expect(toPropertyOut(property, { language: 'ko' }).title).toBe(longestText('ko').title);
    expect(shown.images).toHaveLength(100);
    expect(shown.price).toBe('250000');
  }, 240_000);

  it('lays out a listing stored before the bounds on its next change, and `listing migrate` lays out the others once', async () => {
    // Prepare: two listings as the service stored them before (every text and price change on the item)
    const tenant = await newTenant(['en', 'es', 'fr', 'de']);
    const texts: ListingTexts = Object.fromEntries(
      ['es', 'fr', 'de'].map((language) => [
        language,
        { title: `${language} title`, description: 'x'.repeat(20_000) },
      ]),
    );
    const priceHistory = Array.from({ length: 1_000 }, (_, n) => ({
      price: `${100000 + n}`,
      rent_price: null,
      currency: 'EUR',
      changed_at: new Date(Date.UTC(2024, 0, 1) + n * 60_000).toISOString(),
      changed_by: 'crm-key',
    }));
    const stored = async () => {
      const id = crypto.randomUUID();
      const now = new Date().toISOString();
      await Listing.create({
        tenantId: tenant.tenantId,
        id,
        title: 'Old flat',
        sourceLanguage: 'en',
        slug: `old-flat-${id.slice(0, 8)}`,
        origin: 'api',
        createdBy: 'crm-key',
        updatedBy: 'crm-key',
        createdAt: now,
        updatedAt: now,
        price: '100999',
        currency: 'EUR',
        texts,
        priceHistory,
      }).go();
      return id;
    };
    const [changedId, migratedId, otherId] = [await stored(), await stored(), await stored()];
    const before = toPropertyOut((await readListing(tenant.tenantId, migratedId)).property, {
      language: 'fr',
    });
    // Act
    await editListing(writer(tenant), changedId, { bedrooms: 3 }, undefined);
    const migration = await migrateListings(tenant.tenantId);
    const again = await migrateListings(tenant.tenantId);
    // Assess
    // Two laid out, and all three given the copy of their Areas (stored before the copy existed).
    expect(migration).toEqual({ examined: 3, migrated: 3 });
    expect(again).toEqual({ examined: 3, migrated: 0 });
    for (const id of [changedId, migratedId, otherId]) {
      const items = await storedItems(tenant.tenantId, id);
      const listingItem = items.find((i) => i.sk === 'property')!;
      expect(listingItem.item.priceHistory).toEqual(priceHistory.slice(-PRICE_HISTORY_KEPT));
      expect(listingItem.item.textsApart).toEqual(['de', 'es', 'fr']);
      expect(listingItem.bytes).toBeLessThan(16 * 1024);
      expect(items.map((i) => i.sk).sort()).toEqual([
        'property',
        'property#text#de',
        'property#text#es',
        'property#text#fr',
      ]);
    }
    const migrated = (await readListing(tenant.tenantId, migratedId)).property;
    expect(toPropertyOut(migrated, { language: 'fr' })).toEqual(before);
    expect(migrated.texts).toEqual(texts);
    expect((await getListing(tenant.tenantId, changedId))?.bedrooms).toBe(3);
  }, 120_000);
});
