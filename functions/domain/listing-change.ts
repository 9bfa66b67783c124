/**
 * What a write does to a listing (its fields, archiving, the enrichment it queues): the attribute
 * changes a validated create or PATCH makes against the listing as it is. No I/O here: the service
 * resolves the Agent and the Place first, decides with `planListingChange`, then writes the plan in
 * one write.
 */
import { enrichmentTriggered } from './enrichment.ts';
import { listingStatus } from './listing.ts';
import { type ListingTexts, writeTexts } from './listing-text.ts';

/** API field → attribute, for the fields stored as they come (after validation). */
export const PLAIN_LISTING_FIELDS = {
  listing_type: 'listingType',
  price: 'price',
  currency: 'currency',
  rent_price: 'rentPrice',
  property_type: 'propertyType',
  bedrooms: 'bedrooms',
  bathrooms: 'bathrooms',
  area: 'area',
  lot_area: 'lotArea',
  parking_spaces: 'parkingSpaces',
  year_built: 'yearBuilt',
  floor: 'floor',
  hoa_fee: 'hoaFee',
  amenities: 'amenities',
  address: 'address',
  latitude: 'latitude',
  longitude: 'longitude',
  location_precision: 'locationPrecision',
  is_featured: 'isFeatured',
  video_url: 'videoUrl',
  tour_url: 'tourUrl',
  internal_ref: 'internalRef',
  ai_enrichment: 'aiEnrichment',
} as const;

/** A validated create or PATCH body (the contract's shape): present fields change, null clears. */
export interface ListingWrite {
  title?: string | undefined;
  description?: string | null | undefined;
  highlights?: string[] | null | undefined;
  place_code?: string | null | undefined;
  /** false takes the listing out of the archive, true archives it; undefined leaves it. */
  archived?: boolean | undefined;
  [field: string]: unknown;
}

/** The listing as a plan reads it (the stored record); other attributes are read by name. */
export interface ListingState {
  texts?: unknown;
  placeCode?: string | undefined;
  archivedAt?: string | undefined;
  aiEnrichment?: boolean | undefined;
  priceHistory?: unknown[] | undefined;
  origin?: string | undefined;
  manualFields?: string[] | undefined;
  enrichmentStatus?: string | undefined;
  enrichmentError?: string | undefined;
  [attribute: string]: unknown;
}

/** Who writes: their name goes into the price history; an import leaves hand-edited fields alone. */
export interface ListingAuthor {
  name: string;
  via: 'api' | 'import';
}

/** What the service looked up before deciding: the Agent and Place the write names, if it names them. */
export interface ListingLookups {
  /** The Agent's id; null: the write clears it; undefined: the write leaves it. */
  agentId: string | null | undefined;
  /** The Place (code and path); null: cleared; undefined: left. */
  place: { code: string; path: unknown[] } | null | undefined;
}

export interface ListingPlan {
  /** Attributes to set (only those that really change). */
  set: Record<string, unknown>;
  /** Attributes to remove. */
  clear: Set<string>;
  /** The Place changed: the listing's Areas are recomputed after the write. */
  placeChanged: boolean;
  /**
   * AI enrichment: `request` asks for a new request (its status is the Tenant's allowance's to say,
   * `enrichmentRequested`); `withdraw` was already applied to the plan (switched off while queued).
   */
  enrichment: 'request' | 'withdraw' | undefined;
}

const same = (a: unknown, b: unknown) => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);

/** The fields a write carries, minus those an import must leave alone (a key edited them). */
export function effectiveWrite(
  author: ListingAuthor,
  current: ListingState | undefined,
  write: ListingWrite,
) {
  if (author.via !== 'import' || !current?.manualFields?.length) return write;
  const manual = new Set(current.manualFields);
  return Object.fromEntries(Object.entries(write).filter(([field]) => !manual.has(field))) as ListingWrite;
}

/**
 * Turns a validated write into attribute changes against `current` (undefined on create): plain
 * fields, text in the request's language, Agent, Place, price history, manual-edit marks and the
 * enrichment trigger. Only what really changes is kept.
 */
export function planListingChange(
  current: ListingState | undefined,
  write: ListingWrite,
  resolved: ListingLookups & { author: ListingAuthor; language: string; sourceLanguage: string },
  now: string,
): ListingPlan {
  const { author, language, sourceLanguage } = resolved;
  const input = effectiveWrite(author, current, write);
  const before = current as Record<string, unknown> | undefined;
  const set: Record<string, unknown> = {};
  const clear = new Set<string>();
  const put = (attribute: string, value: unknown) => {
    if (value === null || value === undefined) {
      if (before && before[attribute] !== undefined) clear.add(attribute);
    } else if (!before || !same(before[attribute], value)) {
      set[attribute] = value;
    }
  };

  for (const [field, attribute] of Object.entries(PLAIN_LISTING_FIELDS)) {
    const value = input[field];
    if (value !== undefined) put(attribute, value);
  }

  // Text, in the language it is written in.
  const textWritten =
    input.title !== undefined || input.description !== undefined || input.highlights !== undefined;
  if (textWritten) {
    if (language === sourceLanguage) {
      if (input.title !== undefined) put('title', input.title);
      if (input.description !== undefined) put('description', input.description);
    }
    put(
      'texts',
      writeTexts((current?.texts as ListingTexts | undefined) ?? {}, language, sourceLanguage, {
        title: input.title,
        description: input.description,
        highlights: input.highlights,
      }),
    );
  }

  if (resolved.agentId !== undefined) put('agentId', resolved.agentId);

  let placeChanged = false;
  if (input.place_code !== undefined) {
    const place = resolved.place ?? null;
    put('placeCode', place ? place.code : null);
    put('placePath', place ? place.path : null);
    placeChanged = (place ? place.code : undefined) !== current?.placeCode;
  }

  // Archiving keeps slug and history, so taking a listing back is clearing the mark: it is live
  // again with its Place, a draft without.
  if (input.archived === true && !current?.archivedAt) set.archivedAt = now;
  if (input.archived === false && current?.archivedAt) clear.add('archivedAt');

  // Every price change is recorded: amount, currency, when, and who.
  const next = { ...current, ...set } as Record<string, unknown>;
  for (const attribute of clear) delete next[attribute];
  const priceKeys = ['price', 'rentPrice', 'currency'] as const;
  const priceChanged = priceKeys.some((k) => !same(next[k], before?.[k]));
  if (priceChanged && (next.price !== undefined || next.rentPrice !== undefined || current)) {
    const history = (current?.priceHistory ?? []).slice();
    history.push({
      price: next.price ?? null,
      rent_price: next.rentPrice ?? null,
      currency: next.currency ?? null,
      changed_at: now,
      changed_by: author.name,
    });
    set.priceHistory = history;
  }

  // A key's edit of an imported listing is a manual edit: later imports leave those fields alone.
  if (author.via === 'api' && current?.origin === 'import') {
    const fields = Object.keys(write).filter((f) => write[f] !== undefined);
    const manual = [...new Set([...(current.manualFields ?? []), ...fields])];
    if (manual.length !== (current.manualFields ?? []).length) set.manualFields = manual;
  }

  // AI enrichment: requested on create, or when the listing goes live or its title or description
  // changes while live (highlights alone, or other fields, do not re-run it).
  const textChanged =
    ['title', 'description'].some((a) => a in set || clear.has(a)) ||
    ('texts' in set && (input.title !== undefined || input.description !== undefined));
  const aiEnrichment = (next.aiEnrichment as boolean | undefined) ?? true;
  let enrichment: ListingPlan['enrichment'];
  if (
    enrichmentTriggered({
      created: !current,
      aiEnrichment,
      wasLive: current ? listingStatus(current) === 'live' : false,
      isLive: listingStatus(next as { placeCode?: string; archivedAt?: string }) === 'live',
      textChanged,
    })
  ) {
    enrichment = 'request';
  } else if (!aiEnrichment && current?.enrichmentStatus === 'pending') {
    // Switched off while queued: withdraw the request, so the worker stands down.
    clear.add('enrichmentStatus');
    clear.add('enrichmentRequestId');
    enrichment = 'withdraw';
  }
  return { set, clear, placeChanged, enrichment };
}

/**
 * A plan that asks for enrichment, completed: the new request's id and the status the Tenant's
 * allowance gives it (pending, or held off / paused), a fresh attempt count, a previous error cleared.
 */
export function withEnrichmentRequest(
  plan: ListingPlan,
  current: ListingState | undefined,
  request: { id: string; status: string },
): ListingPlan {
  const set = {
    ...plan.set,
    enrichmentStatus: request.status,
    enrichmentRequestId: request.id,
    enrichmentAttempts: 0,
  };
  const clear = new Set(plan.clear);
  if (current?.enrichmentError) clear.add('enrichmentError');
  return { ...plan, set, clear };
}
