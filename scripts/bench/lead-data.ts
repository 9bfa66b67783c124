/**
 * The leads bench's Tenant, as data: 20,000 varied Leads from a seeded PRNG, so every run measures
 * the same population. Pure (no I/O, no functions/ module that reads configuration): the records
 * are what functions/data/leads.ts stores before `withDerivedKeys`, which scripts/bench/leads.ts
 * applies, with the token and claim builders, when it writes them.
 */
import type { EntityItem } from 'electrodb';
import type { Lead } from '../../functions/data/entities/lead.ts';
import {
  BUYER_TYPES,
  LEAD_STATUSES,
  type LeadSource,
  type LeadStatus,
  RECOMMENDED_ACTIONS,
  type ScoreTier,
  tierOf,
} from '../../functions/domain/leads.ts';

type LeadRecord = EntityItem<typeof Lead>;

/** mulberry32: small, fast, and the same sequence for the same seed on every machine. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A value drawn by weight. */
export function weighted<T>(rand: () => number, table: readonly (readonly [T, number])[]): T {
  const total = table.reduce((sum, [, w]) => sum + w, 0);
  let x = rand() * total;
  for (const [value, w] of table) {
    x -= w;
    if (x < 0) return value;
  }
  return (table.at(-1) as readonly [T, number])[0];
}

const pick = <T>(rand: () => number, list: readonly T[]): T => list[Math.floor(rand() * list.length)] as T;

/** Accented and not: the search folds them (María → maria), so both must be present. */
const FIRST_NAMES = [
  'María',
  'José',
  'Marta',
  'Mario',
  'Marco',
  'Marina',
  'Ana',
  'Ángel',
  'Álvaro',
  'Inés',
  'Lucía',
  'Sofía',
  'Pablo',
  'Raúl',
  'Nuria',
  'Íñigo',
  'Mónica',
  'Begoña',
  'Jesús',
  'Ramón',
  'Elena',
  'Carmen',
  'Laura',
  'David',
  'Daniel',
  'Jürgen',
  'Björn',
  'Sven',
  'Ingrid',
  'Åsa',
  'Göran',
  'Søren',
  'François',
  'Chloé',
  'Hélène',
  'Émile',
  'Noëlle',
  'Zoë',
  'Joël',
  'Łukasz',
  'Małgorzata',
  'Katarzyna',
  'Pieter',
  'Anouk',
  'Giulia',
  'Lorenzo',
  'Francesca',
  'Siobhán',
  'Seán',
  'James',
  'Sarah',
  'Thomas',
  'Charlotte',
  'Olivia',
  'Emma',
  'Liam',
  'Dmitri',
  'Olga',
] as const;

const LAST_NAMES = [
  'García',
  'Martínez',
  'López',
  'Sánchez',
  'Pérez',
  'Gómez',
  'Fernández',
  'Rodríguez',
  'González',
  'Díaz',
  'Muñoz',
  'Álvarez',
  'Romero',
  'Navarro',
  'Marín',
  'Ibáñez',
  'Peña',
  'Müller',
  'Schröder',
  'Weiß',
  'Köhler',
  'Dubois',
  'Lefèvre',
  'Girard',
  'Nowak',
  'Kowalski',
  'Wójcik',
  'Smith',
  'Johnson',
  "O'Brien",
  'Murphy',
  'van der Berg',
  'de Vries',
  'Jansen',
  'Rossi',
  'Bianchi',
  'Esposito',
  'Andersson',
  'Johansson',
  'Håkansson',
  'Nielsen',
  'Ivanova',
  'Petrov',
  'Gonçalves',
  'Costa',
] as const;

/**
 * Surnames given to a fixed handful of Leads: `zubizarreta` is a rare word under a rare prefix
 * (zub), `marchetti` a rare word under the most common one (mar, shared with María, Marta,
 * Martínez…), the case a prefix partition serves worst.
 */
export const RARE_SURNAMES = { rare: 'Zubizarreta', rareBehindCommonPrefix: 'Marchetti' } as const;
/** Every RARE_EVERY-th Lead (from offset 7 and 11) carries one of them. */
const RARE_EVERY = 2500;

const DOMAINS = [
  'gmail.com',
  'hotmail.com',
  'outlook.es',
  'yahoo.co.uk',
  'web.de',
  'gmx.de',
  'orange.fr',
  'telefonica.net',
  'icloud.com',
  'correo.es',
] as const;

const SHORT_NOTES = [
  'Wants a sea view, budget around 600k',
  'Called twice; prefers WhatsApp in the evening',
  'Looking for a villa with a private pool near Marbella',
  'Relocating from Stockholm in spring, two children',
  'Investor: buys to let, asks for yields',
  'Met at the Málaga property fair',
  'Needs a ground floor flat, mobility issues',
  'Second home; visits in August only',
] as const;

const STATUS_WEIGHTS: readonly (readonly [LeadStatus, number])[] = [
  ['new', 30],
  ['contacted', 25],
  ['qualified', 15],
  ['negotiating', 10],
  ['closed_won', 8],
  ['closed_lost', 12],
];
const TIER_WEIGHTS: readonly (readonly [ScoreTier | 'unscored', number])[] = [
  ['unscored', 35],
  ['cold', 25],
  ['moderate', 18],
  ['warm', 14],
  ['hot', 8],
];
const SOURCE_WEIGHTS: readonly (readonly [LeadSource, number])[] = [
  ['api', 50],
  ['import', 15],
  ['manual', 25],
  ['website', 10],
];
const SCORE_RANGE: Record<ScoreTier, readonly [number, number]> = {
  cold: [5, 39],
  moderate: [40, 59],
  warm: [60, 79],
  hot: [80, 99],
};

/** ASCII for an email's local part: accents folded, letters kept (ł, ø, ß have no decomposition). */
export function asciiWord(text: string): string {
  return text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/ł/g, 'l')
    .replace(/ø/g, 'o')
    .replace(/ß/g, 'ss')
    .replace(/[^a-z]/g, '');
}

/** A unique E.164 number per index: mostly Spanish mobiles, some British and German ones. */
export function phoneOf(i: number, rand: () => number): string {
  const country = weighted(rand, [
    ['es', 70],
    ['gb', 15],
    ['de', 15],
  ] as const);
  if (country === 'es') return `+346${String((10_000_000 + i * 37) % 100_000_000).padStart(8, '0')}`;
  if (country === 'gb') return `+447700${String(100_000 + i).padStart(6, '0')}`;
  return `+49151${String(20_000_000 + i).padStart(8, '0')}`;
}

export interface LeadSeedOptions {
  tenantId: string;
  count: number;
  /** The Tenant's Agents; Owners are spread over them, with ~15% left Unassigned. */
  agentIds: readonly string[];
  /** The newest seeded Lead's updatedAt; the others go back about a year from it. */
  now: Date;
  seed?: number;
}

/**
 * The i-th Lead of the population. Ids are derived from the seed and the index (UUID-shaped), so a
 * run's list pages always hold the same Leads; updatedAt grows with i (i = 0 is the oldest).
 */
export function leadAt(i: number, o: LeadSeedOptions): LeadRecord {
  const rand = prng((o.seed ?? 20_000) * 1_000_003 + i);
  const first = pick(rand, FIRST_NAMES);
  const rareSurname =
    i % RARE_EVERY === 7
      ? RARE_SURNAMES.rare
      : i % RARE_EVERY === 11
        ? RARE_SURNAMES.rareBehindCommonPrefix
        : undefined;
  const last = rareSurname ?? pick(rand, LAST_NAMES);
  // Spanish style: about a third carry a second surname.
  const second = rand() < 0.35 ? ` ${pick(rand, LAST_NAMES)}` : '';
  const name = `${first} ${last}${second}`;
  const contact = weighted(rand, [
    ['both', 80],
    ['email', 12],
    ['phone', 8],
  ] as const);
  const email =
    contact === 'phone'
      ? undefined
      : `${asciiWord(first)}.${asciiWord(last)}${i}@${pick(rand, DOMAINS)}`.slice(0, 320);
  const phone = contact === 'email' ? undefined : phoneOf(i, rand);

  const span = 365 * 86_400_000;
  const updated = o.now.getTime() - span + Math.floor((i / Math.max(1, o.count)) * span);
  const created = updated - Math.floor(rand() * 60 * 86_400_000);
  const updatedAt = new Date(updated).toISOString();
  const createdAt = new Date(created).toISOString();

  const owner = rand() < 0.15 || o.agentIds.length === 0 ? undefined : pick(rand, o.agentIds);
  const tier = weighted(rand, TIER_WEIGHTS);
  const source = weighted(rand, SOURCE_WEIGHTS);
  const fromIntegration = source === 'api' || source === 'import';
  const noteRoll = rand();
  // 8% short notes, 0.2% long ones (> 500 characters: the search copy leaves them out).
  const notes =
    noteRoll < 0.002
      ? `${pick(rand, SHORT_NOTES)}. ${'Long call log: discussed areas, schools, mortgage options and timing. '.repeat(9)}`
      : noteRoll < 0.082
        ? pick(rand, SHORT_NOTES)
        : undefined;

  // Unset fields are undefined here and dropped below (as the service leaves them out).
  const record = {
    tenantId: o.tenantId,
    id: uuidOf(o.seed ?? 20_000, i),
    name,
    email,
    phone,
    locale: rand() < 0.7 ? pick(rand, ['es', 'en-GB', 'de', 'fr', 'nl', 'sv'] as const) : undefined,
    notes,
    status: weighted(rand, STATUS_WEIGHTS),
    source,
    sourceDetail: fromIntegration ? pick(rand, ['idealista', 'rightmove', 'fotocasa', 'kyero']) : undefined,
    campaign: fromIntegration && rand() < 0.3 ? pick(rand, ['spring-open-days', 'golf-villas']) : undefined,
    assignedAgentId: owner,
    ownerKey: owner ?? 'unassigned',
    // 2% archived: left out of the default lists by a filter expression.
    isActive: rand() >= 0.02,
    tierKey: tier,
    firstSeenAt: createdAt,
    lastContactAt: updatedAt,
    createdAt,
    updatedAt,
  };
  if (tier !== 'unscored') {
    const [lo, hi] = SCORE_RANGE[tier];
    const score = lo + Math.floor(rand() * (hi - lo + 1));
    Object.assign(record, {
      score,
      scoreTier: tierOf(score),
      buyerType: pick(rand, BUYER_TYPES),
      recommendedAction: pick(rand, RECOMMENDED_ACTIONS),
      scoreReasons: ['Both email and phone known', `Last got in touch ${1 + (i % 90)} days ago`].slice(
        0,
        1 + (i % 2),
      ),
      scoredAt: updatedAt,
    });
  }
  return Object.fromEntries(
    Object.entries(record).filter(([, v]) => v !== undefined),
  ) as unknown as LeadRecord;
}

/** A stable UUID-shaped id (version nibble 4, variant 8) for seed and index. */
export function uuidOf(seed: number, i: number): string {
  const hex = (n: number, width: number) => (n >>> 0).toString(16).padStart(width, '0').slice(-width);
  const r = prng(seed * 7919 + i * 104_729);
  const a = hex(Math.floor(r() * 2 ** 32), 8);
  const b = hex(Math.floor(r() * 2 ** 16), 4);
  const c = `4${hex(Math.floor(r() * 2 ** 12), 3)}`;
  const d = `8${hex(Math.floor(r() * 2 ** 12), 3)}`;
  const e = hex(i, 12);
  return `${a}-${b}-${c}-${d}-${e}`;
}

/** What the population holds, for the report and for choosing filter values. */
export interface LeadPopulation {
  count: number;
  byStatus: Record<string, number>;
  byOwner: Record<string, number>;
  byTier: Record<string, number>;
  archived: number;
  withNotes: number;
  emailOnly: number;
  phoneOnly: number;
}

export function describePopulation(leads: Iterable<LeadRecord>): LeadPopulation {
  const p: LeadPopulation = {
    count: 0,
    byStatus: Object.fromEntries(LEAD_STATUSES.map((s) => [s, 0])),
    byOwner: {},
    byTier: {},
    archived: 0,
    withNotes: 0,
    emailOnly: 0,
    phoneOnly: 0,
  };
  const bump = (r: Record<string, number>, k: string) => {
    r[k] = (r[k] ?? 0) + 1;
  };
  for (const l of leads) {
    p.count += 1;
    bump(p.byStatus, l.status);
    bump(p.byOwner, l.ownerKey);
    bump(p.byTier, l.tierKey);
    if (!l.isActive) p.archived += 1;
    if (l.notes) p.withNotes += 1;
    if (l.email && !l.phone) p.emailOnly += 1;
    if (l.phone && !l.email) p.phoneOnly += 1;
  }
  return p;
}

/**
 * An item's size by DynamoDB's billing rules (approximately): attribute names and string values in
 * UTF-8 bytes, numbers about 1 byte per 2 significant digits + 1, booleans and nulls 1 byte, lists
 * and maps 3 bytes + 1 per element plus their contents. What decides 1 KB write units and 4 KB reads.
 */
export function itemSize(item: Record<string, unknown>): number {
  let size = 0;
  for (const [name, value] of Object.entries(item)) {
    if (value === undefined) continue;
    size += Buffer.byteLength(name) + valueSize(value);
  }
  return size;
}

function valueSize(value: unknown): number {
  if (typeof value === 'string') return Buffer.byteLength(value);
  if (typeof value === 'number') {
    const digits = String(Math.abs(value))
      .replace(/[.e+-]/g, '')
      .replace(/^0+/, '').length;
    return Math.ceil(Math.max(1, digits) / 2) + 1;
  }
  if (typeof value === 'boolean' || value === null) return 1;
  if (Array.isArray(value)) return 3 + value.reduce((sum: number, v) => sum + 1 + valueSize(v), 0);
  if (typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined);
    return 3 + entries.reduce((sum, [k, v]) => sum + 1 + Buffer.byteLength(k) + valueSize(v), 0);
  }
  return 0;
}

/** Running size figures of one kind of item. */
export class SizeTally {
  count = 0;
  total = 0;
  max = 0;
  overOneKb = 0;
  add(bytes: number): void {
    this.count += 1;
    this.total += bytes;
    this.max = Math.max(this.max, bytes);
    if (bytes > 1024) this.overOneKb += 1;
  }
  summary(): { count: number; averageBytes: number; maxBytes: number; overOneKb: number } {
    return {
      count: this.count,
      averageBytes: this.count ? Math.round(this.total / this.count) : 0,
      maxBytes: this.max,
      overOneKb: this.overOneKb,
    };
  }
}
