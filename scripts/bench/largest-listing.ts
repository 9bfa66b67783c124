/**
 * The largest listing the API accepts, as stored (issue 25, "Done when"): a Tenant with twelve Site
 * Languages, each text at its maximum length in a 3-byte script (the most bytes a text can take),
 * `priceChanges` price changes, a full gallery of 100 photos, then one more edit; the bench reports
 * the size of each item of its partition by DynamoDB's rules (what the 400 KB limit and the read and
 * write units count) and how long that last edit took. test/int/listing-items.test.ts edits such a
 * listing and checks its answers; this shows the sizes. Every functions/ module is imported
 * dynamically: main.ts sets the environment first.
 */
import { randomUUID } from 'node:crypto';
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { renditionFile } from '../../functions/domain/images.ts';
import { BENCH_TABLE } from './env.ts';
import { itemSize } from './lead-data.ts';
import { benchDocumentClient } from './sdk.ts';
import { round } from './stats.ts';

/** Twelve Site Languages: Latin scripts and three 3-byte ones. */
const LANGUAGES = ['en', 'es', 'fr', 'de', 'it', 'pt', 'nl', 'sv', 'pl', 'ja', 'zh', 'ko'];
/** A character of a 3-byte UTF-8 script: the longest text the API accepts, in bytes. */
const WIDE = '漢';
const GALLERY_SIZE = 100;
const DYNAMODB_ITEM_LIMIT = 400 * 1024;

/** A language's texts at every maximum the API accepts (title 250 + tag, description 20,000, 6 highlights of 120). */
const longestText = (language: string) => ({
  title: `${language} ${WIDE.repeat(250)}`,
  description: WIDE.repeat(20_000),
  highlights: Array.from({ length: 6 }, () => WIDE.repeat(120)),
});

export interface LargestListing {
  languages: number;
  photos: number;
  priceChanges: number;
  /** Each stored item of the listing's partition, by sort key, and its size by DynamoDB's rules. */
  items: { sk: string; bytes: number }[];
  totalBytes: number;
  /** The last edit (a price and the Japanese description) on the full listing. */
  lastEditMs: number;
  seconds: number;
}

export async function measureLargestListing(
  dynamoEndpoint: string,
  priceChanges: number,
  log: (line: string) => void,
): Promise<LargestListing> {
  const started = performance.now();
  const { createTenantFromAdmin } = await import('../../functions/services/tenants.ts');
  const { getTenant } = await import('../../functions/data/tenants.ts');
  const { createListing, editListing } = await import('../../functions/services/listings.ts');
  const { getListing } = await import('../../functions/data/listings.ts');
  const { saveGallery } = await import('../../functions/data/listing-images.ts');

  const created = await createTenantFromAdmin({
    slug: `bench-largest-${randomUUID().slice(0, 8)}`,
    name: 'Bench Largest Listing Realty',
    languages: LANGUAGES,
  });
  const tenant = await getTenant(created.tenantId);
  if (!tenant) throw new Error('largest listing: the Tenant just created is missing');
  const writer = { tenant, name: 'bench', via: 'api' as const };
  const { record } = await createListing(
    writer,
    { ...longestText('en'), price: '100000', currency: 'EUR' },
    'en',
  );
  log(
    `  largest listing: ${priceChanges} price changes, ${LANGUAGES.length} languages, ${GALLERY_SIZE} photos…`,
  );
  for (let n = 1; n <= priceChanges; n++) {
    await editListing(writer, record.id, { price: String(100_000 + n) }, undefined);
  }
  for (const language of LANGUAGES.slice(1)) {
    await editListing(writer, record.id, longestText(language), language);
  }
  const current = await getListing(tenant.tenantId, record.id);
  if (!current) throw new Error('largest listing: the listing just written is missing');
  const now = new Date().toISOString();
  const gallery = Array.from({ length: GALLERY_SIZE }, (_, n) => {
    const id = randomUUID();
    const key = `originals/${tenant.tenantId}/${record.id}/${randomUUID()}.jpg`;
    // Every rendition a photo 4,000 px wide gets (functions/domain/images.ts renditionPlan).
    const hash = () => randomUUID().replaceAll('-', '');
    const renditions = [
      ...[320, 640, 1024, 1600, 2048].map((w) => ({ w, type: 'image/webp' as const })),
      { w: 1024, type: 'image/jpeg' as const },
    ].map(({ w, type }) => ({
      file: renditionFile(id, w, hash(), type),
      width: w,
      height: Math.round((w * 3) / 4),
      contentType: type,
      sizeBytes: 400_000,
    }));
    return {
      id,
      key,
      url: `https://photos.bench.example/images/${tenant.tenantId}/${record.id}/${renditions.at(-1)?.file}`,
      width: 1024,
      height: 768,
      contentType: 'image/jpeg' as const,
      sizeBytes: 400_000,
      renditions,
      sortOrder: n,
      isPrimary: n === 0,
      createdAt: now,
      importId: randomUUID(),
      uploadKey: `uploads/${tenant.tenantId}/${randomUUID()}`,
    };
  });
  if ((await saveGallery(current, gallery, 'bench', now)) !== 'ok') {
    throw new Error('largest listing: the gallery write lost a race');
  }
  const editStarted = performance.now();
  await editListing(writer, record.id, { price: '250000', description: `${WIDE.repeat(19_999)}!` }, 'ja');
  const lastEditMs = performance.now() - editStarted;

  const { Items = [] } = await benchDocumentClient(dynamoEndpoint).send(
    new QueryCommand({
      TableName: BENCH_TABLE,
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': `t#${tenant.tenantId}#property#${record.id}` },
      ConsistentRead: true,
    }),
  );
  const items = Items.map((item) => ({ sk: String(item.sk), bytes: itemSize(item) }));
  const result: LargestListing = {
    languages: LANGUAGES.length,
    photos: GALLERY_SIZE,
    priceChanges,
    items,
    totalBytes: items.reduce((sum, i) => sum + i.bytes, 0),
    lastEditMs: round(lastEditMs, 1),
    seconds: round((performance.now() - started) / 1000, 1),
  };
  log(
    `  largest listing: ${items.length} items, largest ${round(Math.max(...items.map((i) => i.bytes)) / 1024, 1)} KB, all ${round(result.totalBytes / 1024, 0)} KB; last edit ${result.lastEditMs} ms`,
  );
  return result;
}

/** The report's lines for it. */
export function renderLargestListing(l: LargestListing): string[] {
  const kb = (bytes: number) => (bytes / 1024).toFixed(1);
  const largest = Math.max(...l.items.map((i) => i.bytes));
  const mark = largest <= DYNAMODB_ITEM_LIMIT ? '✓' : '✗';
  return [
    `   Largest listing the API accepts (${l.languages} languages, every text at its maximum in a 3-byte script, ${l.photos} photos, ${l.priceChanges} price changes), stored items (KB, by DynamoDB's rules): ${l.items.map((i) => `${i.sk} ${kb(i.bytes)}`).join(', ')}; largest ${kb(largest)} KB ${mark} ≤ 400 KB, all ${kb(l.totalBytes)} KB; its next edit (price and one description) ${l.lastEditMs.toFixed(1)} ms (built in ${l.seconds} s)`,
  ];
}
