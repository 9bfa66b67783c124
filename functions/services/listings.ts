import { randomUUID } from 'node:crypto';
import type { PropertyCreateInput, PropertyUpdateInput } from '../contract/properties.ts';
import { findAgentByEmail, getAgent } from '../data/agents.ts';
import { spentThisMonthUsd } from '../data/ai-spend.ts';
import {
  type AreaMembershipRecord,
  copiedMemberships,
  copyAreasToListing,
  membershipsOfListing,
} from '../data/areas.ts';
import {
  applyListingChange,
  findListingClaim,
  getListing,
  getListingWithAreas,
  insertListing,
  type ListingChange,
  type ListingRecord,
  listingListOf,
  migrateListingLayout,
  queryAllListings,
  queryListings,
  requireListing,
} from '../data/listings.ts';
import { EDIT_ATTEMPTS, RETRY, withOptimisticRetry } from '../data/optimistic.ts';
import { getPlace } from '../data/places.ts';
import type { TenantRecord } from '../data/tenants.ts';
import { nextTimestamp } from '../data/timestamps.ts';
import { type AiAllowance, spendMonth, statusOnTrigger } from '../domain/enrichment.ts';
import {
  effectiveWrite,
  type ListingPlan,
  planListingChange,
  withEnrichmentRequest,
} from '../domain/listing-change.ts';
import { slugCandidate, slugify } from '../domain/slug.ts';
import { ConflictError, NotFoundError, RequestValidationError } from '../kernel/errors.ts';
import { type IdSource, randomIds } from '../kernel/ids.ts';
import { BusinessMetric, countMetric } from '../kernel/metrics.ts';
import { recomputeListing } from './areas.ts';
import type { Caller } from './caller.ts';
import { pageByBounded, readCursor, type UpdatedPosition } from './paging.ts';

/** Who writes a listing: an API key (its name is recorded), or an admin import of a feed. */
export interface ListingWriter {
  tenant: TenantRecord;
  name: string;
  via: 'api' | 'import';
}

export function writerOf(caller: Caller): ListingWriter {
  return { tenant: caller.tenant, name: caller.apiKey.name, via: 'api' };
}

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

/**
 * Resolve → decide → (the allowance, when enrichment is asked for) → the plan to write: the Agent and
 * Place the write names are looked up first (422 when the Tenant has no such Agent or Place), then
 * domain `planListingChange` decides every attribute change against `current`.
 */
async function planWrite(
  writer: ListingWriter,
  current: ListingRecord | undefined,
  raw: WriteInput,
  language: string,
  sourceLanguage: string,
  now: string,
): Promise<ListingPlan> {
  const author = { name: writer.name, via: writer.via };
  const input = effectiveWrite(author, current, raw);
  const agentId = await resolveAgent(writer.tenant.tenantId, input);
  const place = input.place_code !== undefined ? await resolvePlace(input.place_code) : undefined;
  const plan = planListingChange(current, raw, { author, language, sourceLanguage, agentId, place }, now);
  if (plan.enrichment !== 'request') return plan;
  const status = statusOnTrigger(await allowanceOf(writer.tenant));
  return withEnrichmentRequest(plan, current, { id: randomUUID(), status });
}

/** The Tenant's AI switch and ceiling; the month's spend is read only under a ceiling. */
async function allowanceOf(tenant: TenantRecord): Promise<AiAllowance> {
  const limit = tenant.aiMonthlyLimitUsd ?? null;
  const spent =
    tenant.aiEnabled && limit !== null ? await spentThisMonthUsd(tenant.tenantId, spendMonth(new Date())) : 0;
  return { enabled: tenant.aiEnabled, monthlyLimitUsd: limit, spentThisMonthUsd: spent };
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
  record: ListingRecord;
  language: string;
}

/**
 * Creates a listing. `origin` is api for a key's create, import for a feed's. Under an
 * Idempotency-Key whose earlier run died after it committed, the listing that run created is the
 * answer (its id derives from the key: functions/kernel/ids.ts).
 */
export async function createListing(
  writer: ListingWriter,
  input: PropertyCreateInput,
  lang: string | undefined,
  now = new Date().toISOString(),
  ids: IdSource = randomIds(),
): Promise<WriteResult> {
  const language = resolveLanguage(writer.tenant, lang) ?? writer.tenant.languages[0] ?? 'en';
  const id = ids.next('listing');
  if (ids.resumed) {
    const created = await getListing(writer.tenant.tenantId, id, { consistent: true });
    if (created) return { record: created, language };
  }
  const draft = await planWrite(writer, undefined, input, language, language, now);
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
      // As insertListing files it, so the record answered is the one stored.
      listKey: listingListOf(draft.set),
      // A new listing is in no Area yet: its copy of its memberships starts empty (data/areas.ts).
      areaMemberships: [],
    } as ListingRecord;
    const outcome = await insertListing(record);
    if (outcome === 'ref_taken') throw refTaken(record.internalRef);
    if (outcome === 'ok') {
      countMetric(BusinessMetric.ListingsWritten);
      if (record.placePath) await recomputeListing(writer.tenant.tenantId, record);
      return { record, language };
    }
  }
  throw new ConflictError('Could not find a free slug for this title; retry');
}

async function slugChange(tenantId: string, id: string, title: string, currentSlug: string, attempt: number) {
  const slug = slugFor(title, id, attempt);
  if (slug === currentSlug) return undefined;
  const claim = await findListingClaim(tenantId, 'property-slug', slug, { consistent: true });
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
  return withOptimisticRetry<WriteResult & { changed: boolean }>(
    async () => {
      // Strongly consistent: the write is conditioned on this version, and a retry must see the newer one.
      const current = await requireListing(tenantId, id, { consistent: true });
      const language = requested ?? current.sourceLanguage;
      const now = nextTimestamp(current.updatedAt);
      const draft = await planWrite(writer, current, input, language, current.sourceLanguage, now);
      if (Object.keys(draft.set).length === 0 && draft.clear.size === 0)
        return { record: current, language, changed: false };
      const change: ListingChange = {
        set: { ...draft.set, updatedBy: writer.name } as Partial<ListingRecord>,
        clear: [...draft.clear] as (keyof ListingRecord)[],
      };
      if ('internalRef' in draft.set || draft.clear.has('internalRef')) {
        change.newRef = { value: draft.set.internalRef as string | undefined, previous: current.internalRef };
      }
      let outcome: Awaited<ReturnType<typeof applyListingChange>> = 'stale';
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
        outcome = await applyListingChange(current, change, now);
        if (outcome !== 'slug_taken') break;
      }
      if (outcome === 'ref_taken') throw refTaken(change.newRef?.value);
      if (outcome !== 'ok') return RETRY;
      countMetric(BusinessMetric.ListingsWritten);
      // The listing as written (an eventually consistent read may still answer the old one).
      const record = await requireListing(tenantId, id, { consistent: true });
      if (draft.placeChanged) await recomputeListing(tenantId, record);
      return { record, language, changed: true };
    },
    {
      attempts: EDIT_ATTEMPTS,
      exhausted: () => {
        throw new ConflictError('The listing changed while it was being edited; retry');
      },
    },
  );
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
    const claim = await findListingClaim(writer.tenant.tenantId, 'property-ref', ref, { consistent: true });
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
  await withOptimisticRetry<void>(
    async () => {
      const current = await requireListing(tenantId, id, { consistent: true });
      if (current.archivedAt) return;
      const now = nextTimestamp(current.updatedAt);
      const outcome = await applyListingChange(
        current,
        { set: { archivedAt: now, updatedBy: writer.name }, clear: [] },
        now,
      );
      return outcome === 'ok' ? undefined : RETRY;
    },
    {
      attempts: EDIT_ATTEMPTS,
      exhausted: () => {
        throw new ConflictError('The listing changed while it was being archived; retry');
      },
    },
  );
}

/** A listing with its Areas (one Query), or 404. */
export async function readListing(tenantId: string, id: string) {
  const found = await getListingWithAreas(tenantId, id);
  if (!found) throw new NotFoundError('No listing with this id');
  return found;
}

export interface ListListingsInput {
  limit: number;
  cursor?: string | undefined;
  updated_since?: string | undefined;
  include_archived: boolean;
}

/**
 * A page of listings, least recently updated first, each with its Areas as the single read shows them
 * (one listing, one shape). The read is bounded (data/listings.ts queryListings): a page may be
 * shorter than `limit`, with a cursor to go on, when listings archived before the re-filing are
 * skipped or include_archived merges two lists. Each listing item carries a copy of its Area
 * memberships (data/areas.ts `copyAreasToListing`), so the page is one Query whatever its size; only
 * a listing stored before the copy existed has its memberships read (one Query each, at once) until
 * `listing migrate` writes its copy.
 */
export async function listListings<O>(
  tenantId: string,
  q: ListListingsInput,
  present: (p: ListingRecord, areas: AreaMembershipRecord[]) => O,
) {
  const scope = `${tenantId}:properties:${q.include_archived}:${q.updated_since ?? ''}`;
  const after: UpdatedPosition | undefined = readCursor(q.cursor, scope);
  const page = await queryListings({
    tenantId,
    limit: q.limit,
    includeArchived: q.include_archived,
    ...(after ? { after } : {}),
    ...(q.updated_since ? { since: q.updated_since } : {}),
  });
  const onPage = page.items.slice(0, q.limit);
  const uncopied = onPage.filter((p) => copiedMemberships(p) === undefined);
  const read = await Promise.all(uncopied.map((p) => membershipsOfListing(tenantId, p.id)));
  const areasOf = new Map(uncopied.map((p, i) => [p.id, read[i] ?? []]));
  return pageByBounded(page, q.limit, scope, 'updatedAt', (p) =>
    present(p, copiedMemberships(p) ?? areasOf.get(p.id) ?? []),
  );
}

/**
 * `listing migrate`: lays out every listing of a Tenant stored before the item bounds (texts apart,
 * price history capped) or the archived list (an archived listing moved out of the live list;
 * data/listings.ts), and writes the copy of its Areas a listing stored before the copy lacks.
 * Rerunnable: a listing already within them is only read.
 */
export async function migrateListings(
  tenantId: string,
  progress: (done: number, total: number) => void = () => undefined,
): Promise<{ examined: number; migrated: number }> {
  const listings = await queryAllListings(tenantId);
  let migrated = 0;
  for (const [index, listing] of listings.entries()) {
    const laidOut = await migrateListingLayout(listing);
    const uncopied = copiedMemberships(listing) === undefined;
    if (uncopied) await copyAreasToListing(tenantId, listing.id);
    if (laidOut || uncopied) migrated++;
    progress(index + 1, listings.length);
  }
  return { examined: listings.length, migrated };
}
