/**
 * The indexes a warm site search reads, so that it stays within its target of a median of at most
 * 25 ms at 50,000 live listings (the bench's `site` section, docs/bench.md). A search
 * used to test every listing object of the catalogue against its filters: at 50,000 that is 15–40 ms
 * of pointer chasing in memory (a price-sorted order visits the objects in an order unrelated to
 * where they lie), and a `q` word scanned every listing's text (3–11 ms per word).
 *
 * - {@link SearchColumns}: per catalogue version (dropped on any change, rebuilt by the next search),
 *   the filtered fields as typed arrays by position (the catalogue's newest-first order), each sort's
 *   order as positions, and the bitsets of the amenities, locations and `q` words searched lately. A
 *   search then walks one array of positions and reads typed arrays.
 * - {@link WordIndex}: built by a catalogue's first `q` search and kept current listing by listing:
 *   each distinct folded word (a run of non-space characters) of the listings' searchable text, with
 *   the listings that hold it. `q` keeps its rule (domain/site-search.ts `matches`: each query word
 *   appears somewhere in the folded text); a query word has no space, so it appears in the text
 *   exactly when it appears inside one of its words, and the listings that hold it are those of the
 *   distinct words that contain it: a scan of the vocabulary, not of every text.
 *
 * The reference rules stay in domain/site-search.ts (`matches`, `sortListings`); the unit tests
 * (test/unit/site-search-orders.test.ts) compare every search with them.
 */
import {
  comparedPrice,
  comparePrices,
  type SiteFilters,
  type SiteSort,
  searchableText,
} from '../domain/site-search.ts';
import type { CatalogueListing } from './catalogue-snapshot.ts';

/** Whole numbers below 2^53 compare exactly as numbers; any other price by its decimal string. */
const EXACT_WHOLE = /^[1-9]\d{0,14}$/;

/** A price column's state per position: none, a number, or a decimal compared by its string. */
const PriceState = {
  None: 0,
  Number: 1,
  /** A decimal that is not a whole number below 2^53: compared by its string. */
  Decimal: 2,
} as const;
type PriceState = (typeof PriceState)[keyof typeof PriceState];

interface PriceColumn {
  state: Uint8Array;
  amount: Float64Array;
}

const LISTING_TYPE_CODE = { sale: 1, rent: 2 } as const;

/** Bitsets of searched words (and amenities) kept per catalogue version. */
const WORDS_KEPT = 64;

export interface SearchColumns {
  /** The live listings, newest first (the catalogue's order): a position indexes every column. */
  entries: readonly CatalogueListing[];
  listingType: Uint8Array;
  /** -1: none. */
  bedrooms: Int32Array;
  featured: Uint8Array;
  /** Code into propertyTypes; -1: none. */
  propertyType: Int32Array;
  propertyTypes: Map<string, number>;
  price: PriceColumn;
  rentPrice: PriceColumn;
  /** Positions in each price order asked for (key: sort and listing type). */
  orders: Map<string, Uint32Array>;
  /** Listing id → position, built on first need (a location's members are ids). */
  positionOf?: Map<string, number>;
  /** Bitsets by position: amenities and `q` words (least recently used first), locations. */
  amenityBits: Map<string, Uint8Array>;
  wordBits: Map<string, Uint8Array>;
  /** By location (the object `locationsOf` gives): dropped when the locations are rebuilt. */
  locationBits: Map<object, Uint8Array>;
  /** Estimated bytes held (typed arrays, orders, bitsets). */
  bytes: number;
}

function priceColumn(entries: readonly CatalogueListing[], field: 'price' | 'rentPrice'): PriceColumn {
  const state = new Uint8Array(entries.length);
  const amount = new Float64Array(entries.length);
  for (let p = 0; p < entries.length; p++) {
    const value = (entries[p] as CatalogueListing)[field];
    if (value === undefined) continue;
    if (EXACT_WHOLE.test(value)) {
      state[p] = PriceState.Number;
      amount[p] = Number(value);
    } else state[p] = PriceState.Decimal;
  }
  return { state, amount };
}

/** The columns of a catalogue whose live listings, newest first, are `entries`. */
export function buildSearchColumns(entries: readonly CatalogueListing[]): SearchColumns {
  const n = entries.length;
  const listingType = new Uint8Array(n);
  const bedrooms = new Int32Array(n);
  const featured = new Uint8Array(n);
  const propertyType = new Int32Array(n);
  const propertyTypes = new Map<string, number>();
  for (let p = 0; p < n; p++) {
    const l = entries[p] as CatalogueListing;
    listingType[p] = l.listingType ? LISTING_TYPE_CODE[l.listingType] : 0;
    bedrooms[p] = l.bedrooms ?? -1;
    featured[p] = l.isFeatured ? 1 : 0;
    if (l.propertyType === undefined) propertyType[p] = -1;
    else {
      let code = propertyTypes.get(l.propertyType);
      if (code === undefined) {
        code = propertyTypes.size;
        propertyTypes.set(l.propertyType, code);
      }
      propertyType[p] = code;
    }
  }
  return {
    entries,
    listingType,
    bedrooms,
    featured,
    propertyType,
    propertyTypes,
    price: priceColumn(entries, 'price'),
    rentPrice: priceColumn(entries, 'rentPrice'),
    orders: new Map(),
    amenityBits: new Map(),
    wordBits: new Map(),
    locationBits: new Map(),
    // 1 + 1 + 4 + 4 + 2 × (1 + 8) bytes a position, and the entries array's pointer.
    bytes: n * 36,
  };
}

/**
 * Positions in the order of `sort` (price sorts compare `rent_price` for a rental search, else
 * `price`; unpriced last; ties newest first, which is the lower position): `sortListings`'s order.
 */
function orderOf(
  cols: SearchColumns,
  sort: SiteSort,
  listing: SiteFilters['listing'],
): Uint32Array | undefined {
  if (sort === 'newest') return undefined;
  const key = `${sort}:${listing ?? ''}`;
  let order = cols.orders.get(key);
  if (order) return order;
  const { state, amount } = listing === 'rent' ? cols.rentPrice : cols.price;
  const direction = sort === 'price_asc' ? 1 : -1;
  const field = listing === 'rent' ? 'rentPrice' : 'price';
  const text = (p: number) => (cols.entries[p] as CatalogueListing)[field] as string;
  order = new Uint32Array(cols.entries.length);
  for (let p = 0; p < order.length; p++) order[p] = p;
  order.sort((a, b) => {
    const sa = state[a] as PriceState;
    const sb = state[b] as PriceState;
    if (sa === PriceState.None || sb === PriceState.None) {
      if (sa === sb) return a - b;
      return sa === PriceState.None ? 1 : -1;
    }
    const compared =
      sa === PriceState.Number && sb === PriceState.Number
        ? (amount[a] as number) - (amount[b] as number)
        : comparePrices(text(a), text(b));
    return direction * Math.sign(compared) || a - b;
  });
  cols.orders.set(key, order);
  cols.bytes += order.length * 4;
  return order;
}

/** A bitset kept least recently used first within WORDS_KEPT, its bytes counted. */
function keptBits(cols: SearchColumns, kept: Map<string, Uint8Array>, key: string, build: () => Uint8Array) {
  let bits = kept.get(key);
  if (bits) kept.delete(key);
  else {
    bits = build();
    cols.bytes += bits.length;
    if (kept.size >= WORDS_KEPT) {
      const [oldest, dropped] = kept.entries().next().value as [string, Uint8Array];
      kept.delete(oldest);
      cols.bytes -= dropped.length;
    }
  }
  kept.set(key, bits);
  return bits;
}

function positionsOf(cols: SearchColumns): Map<string, number> {
  if (!cols.positionOf) {
    cols.positionOf = new Map(cols.entries.map((l, p) => [l.id, p]));
    cols.bytes += cols.entries.length * 80;
  }
  return cols.positionOf;
}

/** Drops the location bitsets (the catalogue's locations were rebuilt: new objects, maybe new members). */
export function forgetLocationBits(cols: SearchColumns): void {
  for (const bits of cols.locationBits.values()) cols.bytes -= bits.length;
  cols.locationBits.clear();
}

/** The positions of a set of listing ids (a location's members), as a bitset kept per location. */
export function locationBits(cols: SearchColumns, location: object, ids: ReadonlySet<string>): Uint8Array {
  let bits = cols.locationBits.get(location);
  if (!bits) {
    const positions = positionsOf(cols);
    bits = new Uint8Array(cols.entries.length);
    for (const id of ids) {
      const p = positions.get(id);
      if (p !== undefined) bits[p] = 1;
    }
    cols.locationBits.set(location, bits);
    cols.bytes += bits.length;
  }
  return bits;
}

function amenityBits(cols: SearchColumns, amenity: string): Uint8Array {
  return keptBits(cols, cols.amenityBits, amenity, () => {
    const bits = new Uint8Array(cols.entries.length);
    for (let p = 0; p < bits.length; p++) {
      if ((cols.entries[p] as CatalogueListing).amenities?.includes(amenity)) bits[p] = 1;
    }
    return bits;
  });
}

/**
 * The distinct folded words of every live listing's searchable text and the listings holding each,
 * by a slot per listing that stays while the listing does (positions move with every new listing).
 */
export class WordIndex {
  readonly #slotOf = new Map<string, number>();
  readonly #freeSlots: number[] = [];
  /** Per slot: the listing's distinct words (to take it out of their postings on a change). */
  readonly #wordsOf: (string[] | undefined)[] = [];
  readonly #postings = new Map<string, number[]>();
  /** Estimated bytes held. */
  bytes = 0;

  constructor(listings: Iterable<CatalogueListing>) {
    for (const l of listings) this.add(l);
  }

  get size(): number {
    return this.#slotOf.size;
  }

  /** Indexes a live listing (after `remove` of its previous version, if held). */
  add(listing: CatalogueListing): void {
    const words = [...new Set(searchableText(listing).split(/\s+/))].filter(Boolean);
    const slot = this.#freeSlots.pop() ?? this.#wordsOf.length;
    this.#slotOf.set(listing.id, slot);
    this.#wordsOf[slot] = words;
    for (const word of words) {
      const holders = this.#postings.get(word);
      if (holders) holders.push(slot);
      else {
        this.#postings.set(word, [slot]);
        this.bytes += word.length * 2 + 64;
      }
    }
    // A slot in each word's postings and a reference in the listing's words, plus the map entry.
    this.bytes += words.length * 16 + 80;
  }

  /** Takes a listing out (archived, or about to be indexed again as changed). */
  remove(id: string): void {
    const slot = this.#slotOf.get(id);
    if (slot === undefined) return;
    const words = this.#wordsOf[slot] ?? [];
    for (const word of words) {
      const holders = this.#postings.get(word) as number[];
      const at = holders.indexOf(slot);
      holders[at] = holders[holders.length - 1] as number;
      holders.pop();
      if (holders.length === 0) {
        this.#postings.delete(word);
        this.bytes -= word.length * 2 + 64;
      }
    }
    this.bytes -= words.length * 16 + 80;
    this.#wordsOf[slot] = undefined;
    this.#slotOf.delete(id);
    this.#freeSlots.push(slot);
  }

  /** The slot of each live listing id (for the positions of a catalogue version). */
  slotOf(id: string): number | undefined {
    return this.#slotOf.get(id);
  }

  /** The slots of the listings whose text contains `word` (folded, no space), each at most once. */
  *slotsContaining(word: string): Generator<readonly number[]> {
    for (const [held, slots] of this.#postings) if (held.includes(word)) yield slots;
  }
}

/** The bitset by position of the listings whose searchable text contains the folded `word`. */
function wordBits(cols: SearchColumns, words: WordIndex, word: string): Uint8Array {
  return keptBits(cols, cols.wordBits, word, () => {
    const positionOfSlot = new Int32Array(cols.entries.length + words.size).fill(-1);
    for (let p = 0; p < cols.entries.length; p++) {
      const slot = words.slotOf((cols.entries[p] as CatalogueListing).id);
      if (slot !== undefined) positionOfSlot[slot] = p;
    }
    const bits = new Uint8Array(cols.entries.length);
    for (const slots of words.slotsContaining(word)) {
      for (const slot of slots) {
        const p = positionOfSlot[slot] as number;
        if (p >= 0) bits[p] = 1;
      }
    }
    return bits;
  });
}

export interface IndexedSearch {
  filters: Omit<SiteFilters, 'location' | 'q'>;
  sort: SiteSort;
  /** The location's members (undefined: no location filter), and the location itself as the key. */
  location?: { key: object; ids: ReadonlySet<string> } | undefined;
  /** `q`'s folded words, with the catalogue's word index. */
  q?: { words: string[]; index: WordIndex } | undefined;
  offset: number;
  limit: number;
}

/** A price bound as the column compares it: a number when exact as one, else its string. */
function bound(value: string | undefined) {
  if (value === undefined) return undefined;
  return { text: value, amount: EXACT_WHOLE.test(value) ? Number(value) : undefined };
}

/**
 * The page and total of a search over the columns: the hits in the sort's order, as `matches` and
 * `sortListings` would give them over every listing.
 */
export function searchColumns(
  cols: SearchColumns,
  s: IndexedSearch,
): { items: CatalogueListing[]; total: number } {
  const f = s.filters;
  const n = cols.entries.length;
  const wantType = f.listing ? LISTING_TYPE_CODE[f.listing] : 0;
  const wantProperty = f.type ? (cols.propertyTypes.get(f.type) ?? -3) : -2;
  if (wantProperty === -3) return { items: [], total: 0 };
  const beds = f.beds ?? -2;
  const featuredOnly = f.featured === true;
  const min = bound(f.minPrice);
  const max = bound(f.maxPrice);
  const priced = min !== undefined || max !== undefined;
  const { state, amount } = f.listing === 'rent' ? cols.rentPrice : cols.price;
  const bitsets: Uint8Array[] = [];
  for (const amenity of f.amenities ?? []) bitsets.push(amenityBits(cols, amenity));
  if (s.location) bitsets.push(locationBits(cols, s.location.key, s.location.ids));
  for (const word of s.q?.words ?? []) bitsets.push(wordBits(cols, s.q?.index as WordIndex, word));

  const inRange = (p: number): boolean => {
    const st = state[p] as PriceState;
    if (st === PriceState.None) return false;
    if (st === PriceState.Number) {
      const a = amount[p] as number;
      if (min) {
        if (min.amount !== undefined ? a < min.amount : comparePrices(String(a), min.text) < 0) return false;
      }
      if (max) {
        if (max.amount !== undefined ? a > max.amount : comparePrices(String(a), max.text) > 0) return false;
      }
      return true;
    }
    const price = comparedPrice(cols.entries[p] as CatalogueListing, f.listing) as string;
    if (min && comparePrices(price, min.text) < 0) return false;
    if (max && comparePrices(price, max.text) > 0) return false;
    return true;
  };

  const order = orderOf(cols, s.sort, f.listing);
  const items: CatalogueListing[] = [];
  const end = s.offset + s.limit;
  let total = 0;
  for (let i = 0; i < n; i++) {
    const p = order ? (order[i] as number) : i;
    if (wantType && cols.listingType[p] !== wantType) continue;
    if (wantProperty !== -2 && cols.propertyType[p] !== wantProperty) continue;
    if ((cols.bedrooms[p] as number) < beds) continue;
    if (featuredOnly && !cols.featured[p]) continue;
    let held = true;
    for (const bits of bitsets) {
      if (!bits[p]) {
        held = false;
        break;
      }
    }
    if (!held) continue;
    if (priced && !inRange(p)) continue;
    if (total >= s.offset && total < end) items.push(cols.entries[p] as CatalogueListing);
    total++;
  }
  return { items, total };
}
