/**
 * The generated data, from a seeded draw (the same population on every run and machine): an agency's
 * listings and a CRM's Leads, as the service stores them. No module that reads configuration.
 */
import { readFileSync } from 'node:fs';
import type { EntityItem } from 'electrodb';
import type { Lead } from '../../functions/data/entities/lead.ts';
import * as leads from '../../functions/domain/leads.ts';
import { planListingChange } from '../../functions/domain/listing-change.ts';
import { slugify } from '../../functions/domain/slug.ts';
// mulberry32, the project's one seeded generator: the same sequence for a seed on every machine.
import { seededRandom as prng } from '../local/demo-photos.ts';

/** `'a 1, b 2'` → `[['a', 1], ['b', 2]]`: values by weight. */
export const weights = <T extends string>(list: string) =>
  list
    .split(', ')
    .map((pair) => [pair.slice(0, pair.lastIndexOf(' ')), Number(pair.split(' ').at(-1))] as [T, number]);

/** A value drawn by weight. */
export function weighted<T>(rand: () => number, table: readonly (readonly [T, number])[]): T {
  let x = rand() * table.reduce((sum, [, w]) => sum + w, 0);
  for (const [value, w] of table) {
    x -= w;
    if (x < 0) return value;
  }
  return (table.at(-1) as readonly [T, number])[0];
}

export const pick = <T>(rand: () => number, list: readonly T[]) =>
  list[Math.floor(rand() * list.length)] as T;

export type Place = { code: string; name: string; path: { code: string; name: string; kind: string }[] };

/** The demo Place catalogue (the bench's fixture and `npm start` load it), each Place with its path. */
export function demoPlaces(): Map<string, Place> {
  type Row = { code: string; name: string; kind: string; parent?: string };
  const rows = JSON.parse(readFileSync(`${import.meta.dirname}/../local/demo-places.json`, 'utf8')) as Row[];
  const byCode = new Map(rows.map((r) => [r.code, r]));
  const path = (r: Row | undefined): Place['path'] =>
    r ? [...path(byCode.get(r.parent ?? '')), { code: r.code, name: r.name, kind: r.kind }] : [];
  return new Map(rows.map((r) => [r.code, { code: r.code, name: r.name, path: path(r) }]));
}

/** Where the listings are, by weight: towns and neighbourhoods of the demo Places. */
export const PLACES = weights(
  'ES-MA-MAR 18, ES-MA-MAR-PB 8, ES-MA-MAR-GM 6, ES-MA-EST 12, ES-MA-BEN 10, ES-MA-MLG 12, ES-MA-NER 6, ' +
    'ES-CA-SOT 7, ES-IB-PMI 8, PT-FAR-LAG 5, PT-FAR-LOU 4, PT-LIS-CAS 4',
);
/** Each type's weight, sale price range (EUR), monthly rent range and bedrooms by weight. */
const TYPES = {
  apartment: [38, 140_000, 900_000, 750, 3_500, '1 20, 2 45, 3 30, 4 5'],
  penthouse: [9, 350_000, 2_500_000, 1_800, 7_000, '2 35, 3 50, 4 15'],
  villa: [18, 650_000, 6_500_000, 3_000, 18_000, '3 25, 4 35, 5 25, 6 15'],
  townhouse: [12, 250_000, 1_200_000, 1_200, 4_000, '2 25, 3 50, 4 25'],
  studio: [8, 95_000, 260_000, 600, 1_300, '0 100'],
  semi_detached: [9, 300_000, 1_100_000, 1_500, 4_500, '3 60, 4 40'],
  finca: [6, 400_000, 3_000_000, 2_000, 8_000, '3 40, 4 40, 6 20'],
} as const;
const TYPE_WEIGHTS = Object.entries(TYPES).map(([t, [w]]) => [t as keyof typeof TYPES, w] as const);
/** Amenities by how often a listing has them, in percent. */
const AMENITIES = weights(
  'pool 45, private_pool 15, garden 30, terrace 60, balcony 35, garage 30, private_parking 25, elevator 35, ' +
    'air_conditioning 70, central_heating 20, sea_view 30, mountain_view 15, golf_view 8, gated_community 20, ' +
    'furnished 30, fitted_kitchen 60, storage_room 25, gym 6, solar_panels 7, pets_allowed 10',
);
const OPENERS = ['Bright', 'Renovated', 'Spacious', 'Modern', 'Charming', 'Luxury', 'Cosy', 'Quiet'];
const POINTS = [
  'a few minutes’ walk from the beach',
  'with open views over the Mediterranean',
  'close to schools, shops and restaurants',
  'next to the golf course',
  'in the historic old town',
  'within walking distance of the marina',
];

const DAY = 86_400_000;
type Tenant = { tenantId: string; agentIds: string[]; places: Map<string, Place> };

/**
 * Listing `i` of an agency's catalogue, drawn from its seed: the create shape with its Place, when
 * it was created (in two years) and edited (up to 90 days later), whether a draft (2 %) or archived (5 %).
 */
function drawListing(i: number, places: Map<string, Place>) {
  const rand = prng(Math.imul(i + 1, 2654435761));
  const type = weighted(rand, TYPE_WEIGHTS);
  const [, saleMin, saleMax, rentMin, rentMax, bedWeights] = TYPES[type];
  const rent = rand() < 0.3;
  const beds = Number(weighted(rand, weights(bedWeights)));
  const place = places.get(weighted(rand, PLACES)) as Place;
  const amenities = AMENITIES.filter(([, percent]) => rand() * 100 < percent).map(([a]) => a);
  const noun = `${beds ? `${beds}-bedroom ` : ''}${type.replace('_', '-')}`;
  const title = `${pick(rand, OPENERS)} ${noun} in ${place.name}`;
  const views = amenities.includes('sea_view') ? ' Sea views from the living room.' : '';
  const price = (min: number, max: number, step: number) =>
    String(Math.round((min + rand() * rand() * (max - min)) / step) * step);
  const createdAt = new Date(Date.now() - 91 * DAY - rand() * 730 * DAY);
  const updatedAt = new Date(createdAt.getTime() + rand() * 90 * DAY).toISOString();
  const kind = rand();
  const write = {
    title,
    description: `A ${noun} ${pick(rand, POINTS)}.${views} Reference ${i + 1}.`,
    listing_type: rent ? 'rent' : 'sale',
    currency: 'EUR',
    property_type: type,
    bedrooms: beds,
    bathrooms: String(Math.max(1, beds)),
    area: String(40 + beds * 30 + Math.round(rand() * 80)),
    amenities,
    is_featured: rand() < 0.04,
    ai_enrichment: false,
    ...(rent ? { rent_price: price(rentMin, rentMax, 50) } : { price: price(saleMin, saleMax, 5000) }),
    place_code: place.code,
  };
  return { write, place, createdAt, updatedAt, draft: kind < 0.02, archived: kind >= 0.02 && kind < 0.07 };
}

/** The import's feed: the catalogue's first `count` listings, all with a Place, each an `internal_ref`. */
export const importFeed = (count: number, prefix: string): Record<string, unknown>[] => {
  const places = demoPlaces();
  return Array.from({ length: count }, (_, i) => ({
    internal_ref: `${prefix}-${i + 1}`,
    ...drawListing(i, places).write,
  }));
};

/** Listing `i` of a Tenant's catalogue as stored: a draft without its Place, an archived one filed so. */
export function listingAt(i: number, o: Tenant) {
  const { write: drawn, place, createdAt, updatedAt, draft, archived } = drawListing(i, o.places);
  const { place_code, ...write } = drawn;
  const resolved = {
    author: { name: 'bench', via: 'api' as const },
    language: 'en',
    sourceLanguage: 'en',
    agentId: o.agentIds[i % o.agentIds.length] ?? null,
    place: draft ? undefined : place,
  };
  const input = draft ? write : { ...write, place_code };
  const { set } = planListingChange(undefined, input, resolved, createdAt.toISOString());
  return {
    ...set,
    tenantId: o.tenantId,
    id: `${String(i).padStart(8, '0')}-0000-4000-8000-${o.tenantId.replaceAll('-', '').slice(-12)}`,
    title: write.title,
    // A slug of its own: its title's and its number.
    slug: `${slugify(write.title)}-${i + 1}`,
    ...{ origin: 'api', createdBy: 'bench', updatedBy: 'bench', sourceLanguage: 'en' },
    ...{ createdAt: createdAt.toISOString(), updatedAt },
    ...(archived && { archivedAt: updatedAt, listKey: 'archived-properties' }),
  };
}

type LeadRecord = EntityItem<typeof Lead>;

/** Accented and not: the search folds them (María → maria), so both must be present. */
const FIRST_NAMES = (
  'María José Marta Mario Marco Marina Ana Ángel Álvaro Inés Lucía Sofía Pablo Raúl Nuria Íñigo Mónica ' +
  'Begoña Jesús Ramón Elena Carmen Laura David Daniel Jürgen Björn Sven Ingrid Åsa Göran Søren François ' +
  'Chloé Hélène Émile Noëlle Zoë Joël Łukasz Małgorzata Katarzyna Pieter Anouk Giulia Lorenzo Francesca ' +
  'Siobhán Seán James Sarah Thomas Charlotte Olivia Emma Liam Dmitri Olga'
).split(' ');
const LAST_NAMES = (
  'García, Martínez, López, Sánchez, Pérez, Gómez, Fernández, Rodríguez, González, Díaz, Muñoz, Álvarez, ' +
  'Romero, Navarro, Marín, Ibáñez, Peña, Müller, Schröder, Weiß, Köhler, Dubois, Lefèvre, Girard, Nowak, ' +
  "Kowalski, Wójcik, Smith, Johnson, O'Brien, Murphy, van der Berg, de Vries, Jansen, Rossi, Bianchi, " +
  'Esposito, Andersson, Johansson, Håkansson, Nielsen, Ivanova, Petrov, Gonçalves, Costa'
).split(', ');
/**
 * Surnames of a few Leads (every RARE_EVERY-th, from offsets 7 and 11): a rare word under a rare prefix
 * (zub), and one under the most common (mar: María, Marta, Martínez…), what a prefix partition serves worst.
 */
export const RARE_SURNAMES = { rare: 'Zubizarreta', rareBehindCommonPrefix: 'Marchetti' } as const;
const RARE_EVERY = 2500;
const DOMAINS = 'gmail.com hotmail.com outlook.es yahoo.co.uk web.de gmx.de orange.fr correo.es'.split(' ');
const SHORT_NOTES = [
  'Wants a sea view, budget around 600k',
  'Called twice; prefers WhatsApp in the evening',
  'Looking for a villa with a private pool near Marbella',
  'Relocating from Stockholm in spring, two children',
  'Investor: buys to let, asks for yields',
  'Met at the Málaga property fair',
  'Needs a ground floor flat, mobility issues',
  'Second home; visits in August only',
];
const STATUSES = weights<leads.LeadStatus>(
  'new 30, contacted 25, qualified 15, negotiating 10, closed_won 8, closed_lost 12',
);
const TIERS = weights<leads.ScoreTier | 'unscored'>('unscored 35, cold 25, moderate 18, warm 14, hot 8');
const SOURCES = weights<leads.LeadSource>('api 50, import 15, manual 25, website 10');
const SCORES = { cold: [5, 39], moderate: [40, 59], warm: [60, 79], hot: [80, 99] } as const;

/** ASCII for an email's local part: accents folded, letters kept (ł, ø, ß have no decomposition). */
export function asciiWord(text: string): string {
  const letters: Record<string, string> = { ł: 'l', ø: 'o', ß: 'ss' };
  return text
    .normalize('NFKD')
    .toLowerCase()
    .replace(/[^a-złøß]/g, '')
    .replace(/[łøß]/g, (c) => letters[c] ?? c);
}

/** A unique E.164 number per index: mostly Spanish mobiles, some British and German ones. */
export function phoneOf(i: number, rand: () => number): string {
  const country = weighted(rand, weights('es 70, gb 15, de 15'));
  if (country === 'es') return `+346${String((10_000_000 + i * 37) % 100_000_000).padStart(8, '0')}`;
  if (country === 'gb') return `+447700${String(100_000 + i).padStart(6, '0')}`;
  return `+49151${String(20_000_000 + i).padStart(8, '0')}`;
}

export interface LeadSeedOptions {
  tenantId: string;
  count: number;
  /** The Tenant's Agents; Owners are spread over them, with ~15% left Unassigned. */
  agentIds: readonly string[];
  /** The newest Lead's updatedAt; the others go back about a year from it. */
  now: Date;
  seed?: number;
}

/** A stable UUID-shaped id (version nibble 4, variant 8) for seed and index. */
export function uuidOf(seed: number, i: number): string {
  const hex = (n: number, width: number) => (n >>> 0).toString(16).padStart(width, '0').slice(-width);
  const r = prng(seed * 7919 + i * 104_729);
  return `${hex(r() * 2 ** 32, 8)}-${hex(r() * 2 ** 16, 4)}-4${hex(r() * 4096, 3)}-8${hex(r() * 4096, 3)}-${hex(i, 12)}`;
}

/** The i-th Lead: ids from the seed and index, updatedAt growing with i (i = 0 the oldest). */
export function leadAt(i: number, o: LeadSeedOptions): LeadRecord {
  const seed = o.seed ?? 20_000;
  const rand = prng(seed * 1_000_003 + i);
  const first = pick(rand, FIRST_NAMES);
  const rare = { 7: RARE_SURNAMES.rare, 11: RARE_SURNAMES.rareBehindCommonPrefix }[i % RARE_EVERY];
  const last = rare ?? pick(rand, LAST_NAMES);
  // Spanish style: about a third carry a second surname.
  const name = `${first} ${last}${rand() < 0.35 ? ` ${pick(rand, LAST_NAMES)}` : ''}`;
  const contact = weighted(rand, weights('both 80, email 12, phone 8'));
  const email =
    contact === 'phone' ? undefined : `${asciiWord(first)}.${asciiWord(last)}${i}@${pick(rand, DOMAINS)}`;
  const phone = contact === 'email' ? undefined : phoneOf(i, rand);
  const span = 365 * 86_400_000;
  const updated = o.now.getTime() - span + Math.floor((i / Math.max(1, o.count)) * span);
  const updatedAt = new Date(updated).toISOString();
  const createdAt = new Date(updated - Math.floor(rand() * 60 * 86_400_000)).toISOString();
  const owner = rand() < 0.15 || o.agentIds.length === 0 ? undefined : pick(rand, o.agentIds);
  const tier = weighted(rand, TIERS);
  const source = weighted(rand, SOURCES);
  const integrated = source === 'api' || source === 'import';
  const noteRoll = rand();
  // 8% short notes, 0.2% long ones (> 500 characters: the search copy leaves them out).
  const long = () =>
    `${pick(rand, SHORT_NOTES)}. ${'Long call log: discussed areas, schools, mortgage options and timing. '.repeat(9)}`;
  const notes = noteRoll < 0.002 ? long() : noteRoll < 0.082 ? pick(rand, SHORT_NOTES) : undefined;
  const record = {
    tenantId: o.tenantId,
    id: uuidOf(seed, i),
    name,
    email,
    phone,
    locale: rand() < 0.7 ? pick(rand, ['es', 'en-GB', 'de', 'fr', 'nl', 'sv'] as const) : undefined,
    notes,
    status: weighted(rand, STATUSES),
    source,
    sourceDetail: integrated ? pick(rand, ['idealista', 'rightmove', 'fotocasa', 'kyero']) : undefined,
    campaign: integrated && rand() < 0.3 ? pick(rand, ['spring-open-days', 'golf-villas']) : undefined,
    assignedAgentId: owner,
    ownerKey: owner ?? 'unassigned',
    // 2% archived: left out of the default lists.
    isActive: rand() >= 0.02,
    tierKey: tier,
    firstSeenAt: createdAt,
    lastContactAt: updatedAt,
    createdAt,
    updatedAt,
  };
  if (tier !== 'unscored') {
    const [lo, hi] = SCORES[tier];
    const score = lo + Math.floor(rand() * (hi - lo + 1));
    const reasons = ['Both email and phone known', `Last got in touch ${1 + (i % 90)} days ago`];
    const scored = { score, scoreTier: leads.tierOf(score), buyerType: pick(rand, leads.BUYER_TYPES) };
    const action = { recommendedAction: pick(rand, leads.RECOMMENDED_ACTIONS), scoredAt: updatedAt };
    Object.assign(record, { ...scored, ...action, scoreReasons: reasons.slice(0, 1 + (i % 2)) });
  }
  // Unset fields are left out, as the service leaves them out.
  return Object.fromEntries(
    Object.entries(record).filter(([, v]) => v !== undefined),
  ) as unknown as LeadRecord;
}
