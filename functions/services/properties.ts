import { randomUUID } from 'node:crypto';
import { getPlace } from '../data/places.ts';
import {
  applyPropertyChange,
  insertProperty,
  type PropertyChange,
  type PropertyRecord,
  queryProperties,
  requireProperty,
} from '../data/properties.ts';
import { slugCandidate, slugify } from '../domain/slug.ts';
import { splitPatch } from '../domain/property.ts';
import { ConflictError, RequestValidationError } from '../platform/errors.ts';
import type { Caller } from '../platform/request-state.ts';
import type { PropertyCreateInput, PropertyUpdateInput } from '../http/properties/schemas.ts';
import { type UpdatedPosition, pageFrom, readCursor } from './paging.ts';

/** API field names → storage attribute names, for the fields a client writes. */
const FIELD_TO_ATTRIBUTE = {
  title: 'title',
  description: 'description',
  listing_type: 'listingType',
  price: 'price',
  currency: 'currency',
  rent_price: 'rentPrice',
  property_type: 'propertyType',
  bedrooms: 'bedrooms',
  bathrooms: 'bathrooms',
  place_code: 'placeCode',
  internal_ref: 'internalRef',
} as const satisfies Record<keyof PropertyUpdateInput, keyof PropertyRecord>;

function toAttributes(input: PropertyUpdateInput): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [field, attribute] of Object.entries(FIELD_TO_ATTRIBUTE)) {
    const value = input[field as keyof PropertyUpdateInput];
    if (value !== undefined) out[attribute] = value;
  }
  return out;
}

async function assertPlaceExists(placeCode: string | null | undefined): Promise<void> {
  if (!placeCode) return;
  if (!(await getPlace(placeCode))) {
    throw RequestValidationError.single(
      ['body', 'place_code'],
      `Unknown place_code "${placeCode}": use a code listed by GET /v1/places`,
      'unknown_place',
    );
  }
}

const refTaken = (ref: string | undefined) =>
  new ConflictError(`internal_ref "${ref}" is already held by another listing of this tenant`);

/** How many slug candidates to try before giving up ("x", "x-2", then one with the id). */
const SLUG_ATTEMPTS = 3;

function slugFor(title: string, id: string, attempt: number): string {
  const base = slugify(title);
  return attempt < SLUG_ATTEMPTS ? slugCandidate(base, attempt) : `${base}-${id.slice(0, 8)}`;
}

export async function createProperty(caller: Caller, input: PropertyCreateInput, now = new Date().toISOString()) {
  await assertPlaceExists(input.place_code);
  const id = randomUUID();
  const base = Object.fromEntries(Object.entries(toAttributes(input)).filter(([, v]) => v !== null));
  for (let attempt = 1; attempt <= SLUG_ATTEMPTS; attempt++) {
    const record = {
      ...base,
      tenantId: caller.tenant.tenantId,
      id,
      title: input.title,
      slug: slugFor(input.title, id, attempt),
      origin: 'api',
      createdBy: caller.apiKey.name,
      updatedBy: caller.apiKey.name,
      createdAt: now,
      updatedAt: now,
    } as PropertyRecord;
    const outcome = await insertProperty(record);
    if (outcome === 'ok') return record;
    if (outcome === 'ref_taken') throw refTaken(record.internalRef);
  }
  throw new ConflictError('Could not find a free slug for this title; retry');
}

export async function getPropertyFor(caller: Caller, id: string): Promise<PropertyRecord> {
  return requireProperty(caller.tenant.tenantId, id);
}

/** A stale read (another edit landed in between) is retried this many times before 409. */
const EDIT_ATTEMPTS = 3;

export async function updateProperty(caller: Caller, id: string, input: PropertyUpdateInput): Promise<PropertyRecord> {
  await assertPlaceExists(input.place_code);
  const tenantId = caller.tenant.tenantId;
  const { set, clear } = splitPatch(toAttributes(input));
  for (let attempt = 1; attempt <= EDIT_ATTEMPTS; attempt++) {
    const current = await requireProperty(tenantId, id);
    const now = new Date(Math.max(Date.now(), Date.parse(current.updatedAt) + 1)).toISOString();
    const change: PropertyChange = {
      set: { ...set, updatedBy: caller.apiKey.name } as Partial<PropertyRecord>,
      clear: clear as (keyof PropertyRecord)[],
    };
    if ('internalRef' in set || clear.includes('internalRef')) {
      const next = set.internalRef as string | undefined;
      if (next !== current.internalRef) change.newRef = { value: next, previous: current.internalRef };
    }
    const titleChanged = typeof set.title === 'string' && set.title !== current.title;
    for (let slugAttempt = 1; slugAttempt <= SLUG_ATTEMPTS; slugAttempt++) {
      if (titleChanged) {
        const slug = slugFor(set.title as string, id, slugAttempt);
        change.newSlug = slug === current.slug ? undefined : { value: slug, previous: current.slug };
        change.set = { ...change.set, slug };
      }
      const outcome = await applyPropertyChange(current, change, now);
      if (outcome === 'ok') return requireProperty(tenantId, id);
      if (outcome === 'ref_taken') throw refTaken(change.newRef?.value);
      if (outcome === 'stale') break;
    }
  }
  throw new ConflictError('The listing changed while it was being edited; retry');
}

export async function archiveProperty(caller: Caller, id: string): Promise<void> {
  const tenantId = caller.tenant.tenantId;
  for (let attempt = 1; attempt <= EDIT_ATTEMPTS; attempt++) {
    const current = await requireProperty(tenantId, id);
    if (current.archivedAt) return;
    const now = new Date(Math.max(Date.now(), Date.parse(current.updatedAt) + 1)).toISOString();
    const outcome = await applyPropertyChange(
      current,
      { set: { archivedAt: now, updatedBy: caller.apiKey.name }, clear: [] },
      now,
    );
    if (outcome === 'ok') return;
  }
  throw new ConflictError('The listing changed while it was being archived; retry');
}

export interface ListPropertiesInput {
  limit: number;
  cursor?: string | undefined;
  updated_since?: string | undefined;
  include_archived: boolean;
}

export async function listProperties<O>(caller: Caller, q: ListPropertiesInput, present: (p: PropertyRecord) => O) {
  const tenantId = caller.tenant.tenantId;
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
