import { randomUUID } from 'node:crypto';
import type { PropertyCreateInput, PropertyUpdateInput } from '../contract/properties.ts';
import { findAgentByEmail, getAgent } from '../data/agents.ts';
import { spentThisMonthUsd } from '../data/ai-spend.ts';
import { getPlace } from '../data/places.ts';
import {
  applyPropertyChange,
  findPropertyClaim,
  getPropertyWithAreas,
  insertProperty,
  type PropertyChange,
  type PropertyRecord,
  queryProperties,
  requireProperty,
} from '../data/properties.ts';
import type { TenantRecord } from '../data/tenants.ts';
import { enrichmentTriggered, spendMonth, statusOnTrigger } from '../domain/enrichment.ts';
import { type ListingTexts, type TextWrite, writeTexts } from '../domain/listing-text.ts';
import { listingStatus } from '../domain/property.ts';
import { slugCandidate, slugify } from '../domain/slug.ts';
import { ConflictError, NotFoundError, RequestValidationError } from '../kernel/errors.ts';
import { BusinessMetric, countMetric } from '../kernel/metrics.ts';
import { recomputeListing } from './areas.ts';
import type { Caller } from './caller.ts';
import { pageFrom, readCursor, type UpdatedPosition } from './paging.ts';

/** Who writes a listing: an API key (its name is recorded), or an admin import of a feed. */
export interface ListingWriter {
  tenant: TenantRecord;
  name: string;
  via: 'api' | 'import';
}

export function writerOf(caller: Caller): ListingWriter {
  return { tenant: caller.tenant, name: caller.apiKey.name, via: 'api' };
}

/** API field → attribute, for the fields stored as they come (after validation). */
const PLAIN_FIELDS = {
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
} as const satisfies Partial<Record<keyof PropertyUpdateInput, keyof PropertyRecord>>;

type WriteInput = PropertyUpdateInput;

/** The Site Language a request writes or reads in; one the Tenant has not enabled → 422. */
export function resolveLanguage(tenant: TenantRecord, lang: string | undefined): string | undefined {
  if (lang === undefined) return undefined;
  if (!tenant.languages.includes(lang)) {
    throw RequestValidationError.single(
      ['query', 'lang'],
      `"${lang}" is not a Site Language of this tenant (enabled: ${tenant.languages.join(', ')})`,
      'language_not_enabled',
    );
  }
  return lang;
}

/** agent_id or agent_email, one or neither; an Agent the Tenant does not have → 422. */
async function resolveAgent(tenantId: string, input: WriteInput): Promise<string | null | undefined> {
  const { agent_id: agentId, agent_email: agentEmail } = input;
  if (agentId !== undefined && agentId !== null && agentEmail !== undefined && agentEmail !== null) {
    throw RequestValidationError.single(
      ['body', 'agent_email'],
      'Send agent_id or agent_email, not both',
      'agent_ambiguous',
    );
  }
  if (agentId) {
    const agent = await getAgent(tenantId, agentId);
    if (!agent)
      throw RequestValidationError.single(
        ['body', 'agent_id'],
        'No Agent with this id in this tenant',
        'unknown_agent',
      );
    return agent.id;
  }
  if (agentEmail) {
    const agent = await findAgentByEmail(tenantId, agentEmail);
    if (!agent) {
      throw RequestValidationError.single(
        ['body', 'agent_email'],
        'No Agent with this email in this tenant',
        'unknown_agent',
      );
    }
    return agent.id;
  }
  return agentId === null || agentEmail === null ? null : undefined;
}

async function resolvePlace(placeCode: string | null | undefined) {
  if (placeCode === null || placeCode === undefined) return placeCode;
  const place = await getPlace(placeCode);
  if (!place) {
    throw RequestValidationError.single(
      ['body', 'place_code'],
      `Unknown place_code "${placeCode}": use a code listed by GET /v1/places`,
      'unknown_place',
    );
  }
  return place;
}

/** The fields a write carries, minus those an import must leave alone (a key edited them). */
function effectiveInput(
  writer: ListingWriter,
  current: PropertyRecord | undefined,
  input: WriteInput,
): WriteInput {
  if (writer.via !== 'import' || !current?.manualFields?.length) return input;
  const manual = new Set(current.manualFields);
  return Object.fromEntries(Object.entries(input).filter(([field]) => !manual.has(field))) as WriteInput;
}

const same = (a: unknown, b: unknown) => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);

interface Draft {
  set: Record<string, unknown>;
  clear: Set<string>;
  placeChanged: boolean;
}

/**
 * Turns a validated write into attribute changes against `current` (undefined on create):
 * plain fields, text in the request's language, Agent, Place, price history, manual-edit marks and
 * the enrichment trigger. Only what really changes is kept.
 */
async function draftChange(
  writer: ListingWriter,
  current: PropertyRecord | undefined,
  raw: WriteInput,
  language: string,
  sourceLanguage: string,
  now: string,
): Promise<Draft> {
  const input = effectiveInput(writer, current, raw);
  const tenantId = writer.tenant.tenantId;
  const set: Record<string, unknown> = {};
  const clear = new Set<string>();
  const put = (attribute: string, value: unknown) => {
    if (value === null || value === undefined) {
      if (current && (current as Record<string, unknown>)[attribute] !== undefined) clear.add(attribute);
    } else if (!current || !same((current as Record<string, unknown>)[attribute], value)) {
      set[attribute] = value;
    }
  };

  for (const [field, attribute] of Object.entries(PLAIN_FIELDS)) {
    const value = input[field as keyof WriteInput];
    if (value !== undefined) put(attribute, value);
  }

  // Text, in the language it is written in.
  const textWrite: TextWrite = {
    title: input.title,
    description: input.description,
    highlights: input.highlights,
  };
  if (
    textWrite.title !== undefined ||
    textWrite.description !== undefined ||
    textWrite.highlights !== undefined
  ) {
    if (language === sourceLanguage) {
      if (input.title !== undefined) put('title', input.title);
      if (input.description !== undefined) put('description', input.description);
    }
    put(
      'texts',
      writeTexts((current?.texts as ListingTexts | undefined) ?? {}, language, sourceLanguage, textWrite),
    );
  }

  const agentId = await resolveAgent(tenantId, input);
  if (agentId !== undefined) put('agentId', agentId);

  let placeChanged = false;
  if (input.place_code !== undefined) {
    const place = await resolvePlace(input.place_code);
    put('placeCode', place ? place.code : null);
    put('placePath', place ? place.path : null);
    placeChanged = (place ? place.code : undefined) !== current?.placeCode;
  }

  // Every price change is recorded: amount, currency, when, and who.
  const next = { ...current, ...set } as Record<string, unknown>;
  for (const attribute of clear) delete next[attribute];
  const priceKeys = ['price', 'rentPrice', 'currency'] as const;
  const priceChanged = priceKeys.some((k) => !same(next[k], current?.[k]));
  if (priceChanged && (next.price !== undefined || next.rentPrice !== undefined || current)) {
    const history = ((current?.priceHistory as unknown[]) ?? []).slice();
    history.push({
      price: next.price ?? null,
      rent_price: next.rentPrice ?? null,
      currency: next.currency ?? null,
      changed_at: now,
      changed_by: writer.name,
    });
    set.priceHistory = history;
  }

  // A key's edit of an imported listing is a manual edit: later imports leave those fields alone.
  if (writer.via === 'api' && current?.origin === 'import') {
    const fields = Object.keys(raw).filter((f) => raw[f as keyof WriteInput] !== undefined);
    const manual = [...new Set([...(current.manualFields ?? []), ...fields])];
    if (manual.length !== (current.manualFields ?? []).length) set.manualFields = manual;
  }

  // AI enrichment: queued on create, or when the listing goes live or its title or description
  // changes while live (highlights alone, or other fields, do not re-run it).
  const textChanged =
    ['title', 'description'].some((a) => a in set || clear.has(a)) ||
    ('texts' in set && (input.title !== undefined || input.description !== undefined));
  const nextStatus = listingStatus(next as { placeCode?: string; archivedAt?: string });
  const aiEnrichment = (next.aiEnrichment as boolean | undefined) ?? true;
  if (
    enrichmentTriggered({
      created: !current,
      aiEnrichment,
      wasLive: current ? listingStatus(current) === 'live' : false,
      isLive: nextStatus === 'live',
      textChanged,
    })
  ) {
    const tenant = writer.tenant;
    const limit = tenant.aiMonthlyLimitUsd ?? null;
    const spent =
      tenant.aiEnabled && limit !== null
        ? await spentThisMonthUsd(tenant.tenantId, spendMonth(new Date()))
        : 0;
    set.enrichmentStatus = statusOnTrigger({
      enabled: tenant.aiEnabled,
      monthlyLimitUsd: limit,
      spentThisMonthUsd: spent,
    });
    set.enrichmentRequestId = randomUUID();
    set.enrichmentAttempts = 0;
    if (current?.enrichmentError) clear.add('enrichmentError');
  } else if (!aiEnrichment && current?.enrichmentStatus === 'pending') {
    // Switched off while queued: withdraw the request, so the worker stands down.
    clear.add('enrichmentStatus');
    clear.add('enrichmentRequestId');
  }
  return { set, clear, placeChanged };
}

const refTaken = (ref: string | undefined) =>
  new ConflictError(`internal_ref "${ref}" is already held by another listing of this tenant`);

/** How many slug candidates to try before giving up ("x", "x-2", then one with the id). */
const SLUG_ATTEMPTS = 3;

function slugFor(title: string, id: string, attempt: number): string {
  const base = slugify(title);
  return attempt < SLUG_ATTEMPTS ? slugCandidate(base, attempt) : `${base}-${id.slice(0, 8)}`;
}

export interface WriteResult {
  record: PropertyRecord;
  language: string;
}

/** Creates a listing. `origin` is api for a key's create, import for a feed's. */
export async function createListing(
  writer: ListingWriter,
  input: PropertyCreateInput,
  lang: string | undefined,
  now = new Date().toISOString(),
): Promise<WriteResult> {
  const language = resolveLanguage(writer.tenant, lang) ?? writer.tenant.languages[0] ?? 'en';
  const id = randomUUID();
  const draft = await draftChange(writer, undefined, input, language, language, now);
  for (let attempt = 1; attempt <= SLUG_ATTEMPTS; attempt++) {
    const record = {
      aiEnrichment: true,
      ...draft.set,
      tenantId: writer.tenant.tenantId,
      id,
      title: input.title,
      sourceLanguage: language,
      slug: slugFor(input.title, id, attempt),
      origin: writer.via,
      createdBy: writer.name,
      updatedBy: writer.name,
      createdAt: now,
      updatedAt: now,
    } as PropertyRecord;
    const outcome = await insertProperty(record);
    if (outcome === 'ref_taken') throw refTaken(record.internalRef);
    if (outcome === 'ok') {
      countMetric(BusinessMetric.ListingsWritten);
      if (record.placePath) await recomputeListing(writer.tenant.tenantId, record);
      return { record, language };
    }
  }
  throw new ConflictError('Could not find a free slug for this title; retry');
}

/** Concurrent edits of one listing retry on a fresh read, with a little jitter, before 409. */
const EDIT_ATTEMPTS = 8;
const pause = (attempt: number) => new Promise((r) => setTimeout(r, Math.random() * 15 * attempt));

async function slugChange(tenantId: string, id: string, title: string, currentSlug: string, attempt: number) {
  const slug = slugFor(title, id, attempt);
  if (slug === currentSlug) return undefined;
  const claim = await findPropertyClaim(tenantId, 'property-slug', slug);
  return { value: slug, previous: currentSlug, reclaim: claim?.ownerId === id };
}

/** Edits a listing by PATCH rules: present fields change, null clears, omitted fields stay. */
export async function editListing(
  writer: ListingWriter,
  id: string,
  input: PropertyUpdateInput,
  lang: string | undefined,
): Promise<WriteResult & { changed: boolean }> {
  const tenantId = writer.tenant.tenantId;
  const requested = resolveLanguage(writer.tenant, lang);
  for (let attempt = 1; attempt <= EDIT_ATTEMPTS; attempt++) {
    const current = await requireProperty(tenantId, id);
    const language = requested ?? current.sourceLanguage;
    const now = new Date(Math.max(Date.now(), Date.parse(current.updatedAt) + 1)).toISOString();
    const draft = await draftChange(writer, current, input, language, current.sourceLanguage, now);
    if (Object.keys(draft.set).length === 0 && draft.clear.size === 0)
      return { record: current, language, changed: false };
    const change: PropertyChange = {
      set: { ...draft.set, updatedBy: writer.name } as Partial<PropertyRecord>,
      clear: [...draft.clear] as (keyof PropertyRecord)[],
    };
    if ('internalRef' in draft.set || draft.clear.has('internalRef')) {
      change.newRef = { value: draft.set.internalRef as string | undefined, previous: current.internalRef };
    }
    let outcome: Awaited<ReturnType<typeof applyPropertyChange>> = 'stale';
    for (let slugAttempt = 1; slugAttempt <= SLUG_ATTEMPTS; slugAttempt++) {
      if (typeof draft.set.title === 'string') {
        const newSlug = await slugChange(tenantId, id, draft.set.title, current.slug, slugAttempt);
        if (newSlug) {
          change.newSlug = newSlug;
          change.set = { ...change.set, slug: newSlug.value };
        } else {
          // This candidate is the slug the listing already has: keep it (drop a taken earlier try).
          delete change.newSlug;
          delete change.set.slug;
        }
      }
      outcome = await applyPropertyChange(current, change, now);
      if (outcome !== 'slug_taken') break;
    }
    if (outcome === 'ref_taken') throw refTaken(change.newRef?.value);
    if (outcome === 'ok') {
      countMetric(BusinessMetric.ListingsWritten);
      const record = await requireProperty(tenantId, id);
      if (draft.placeChanged) await recomputeListing(tenantId, record);
      return { record, language, changed: true };
    }
    await pause(attempt);
  }
  throw new ConflictError('The listing changed while it was being edited; retry');
}

/** PUT /v1/properties/by-ref/{internal_ref}: create with that reference, or edit the listing holding it. */
export async function upsertListingByRef(
  writer: ListingWriter,
  ref: string,
  input: PropertyCreateInput,
  lang: string | undefined,
): Promise<WriteResult & { created: boolean; changed: boolean }> {
  if (input.internal_ref !== undefined && input.internal_ref !== ref) {
    throw RequestValidationError.single(
      ['body', 'internal_ref'],
      'internal_ref in the body differs from the one in the path',
      'internal_ref_mismatch',
    );
  }
  for (let attempt = 1; attempt <= 3; attempt++) {
    const claim = await findPropertyClaim(writer.tenant.tenantId, 'property-ref', ref);
    if (claim) {
      const { internal_ref: _ref, ...edit } = input;
      return { ...(await editListing(writer, claim.ownerId, edit, lang)), created: false };
    }
    try {
      return {
        ...(await createListing(writer, { ...input, internal_ref: ref }, lang)),
        created: true,
        changed: true,
      };
    } catch (error) {
      // Another writer created it in between: edit that one instead.
      if (!(error instanceof ConflictError)) throw error;
    }
  }
  throw new ConflictError(`internal_ref "${ref}" is being written concurrently; retry`);
}

export async function archiveListing(writer: ListingWriter, id: string): Promise<void> {
  const tenantId = writer.tenant.tenantId;
  for (let attempt = 1; attempt <= EDIT_ATTEMPTS; attempt++) {
    const current = await requireProperty(tenantId, id);
    if (current.archivedAt) return;
    const now = new Date(Math.max(Date.now(), Date.parse(current.updatedAt) + 1)).toISOString();
    const outcome = await applyPropertyChange(
      current,
      { set: { archivedAt: now, updatedBy: writer.name }, clear: [] },
      now,
    );
    if (outcome === 'ok') return;
    await pause(attempt);
  }
  throw new ConflictError('The listing changed while it was being archived; retry');
}

/** A listing with its Areas (one Query), or 404. */
export async function readListing(tenantId: string, id: string) {
  const found = await getPropertyWithAreas(tenantId, id);
  if (!found) throw new NotFoundError('No listing with this id');
  return found;
}

export interface ListPropertiesInput {
  limit: number;
  cursor?: string | undefined;
  updated_since?: string | undefined;
  include_archived: boolean;
}

export async function listProperties<O>(
  tenantId: string,
  q: ListPropertiesInput,
  present: (p: PropertyRecord) => O,
) {
  const scope = `${tenantId}:properties:${q.include_archived}:${q.updated_since ?? ''}`;
  const after: UpdatedPosition | undefined = readCursor(q.cursor, scope);
  const items = await queryProperties({
    tenantId,
    limit: q.limit,
    includeArchived: q.include_archived,
    ...(after ? { after } : {}),
    ...(q.updated_since ? { since: q.updated_since } : {}),
  });
  return pageFrom(items, q.limit, scope, present);
}
