import { toActivityOut } from '../contract/activities.ts';
import { toInquiryOut } from '../contract/inquiries.ts';
import { toLeadOut } from '../contract/leads.ts';
import { toPropertyOut } from '../contract/properties.ts';
import type { AreaMembershipRecord } from '../data/areas.ts';
import { Activity } from '../data/entities/activity.ts';
import { Inquiry } from '../data/entities/inquiry.ts';
import { Lead } from '../data/entities/lead.ts';
import { Listing } from '../data/entities/listing.ts';
import { type EventRecord, putEvent } from '../data/events.ts';
import { getLead } from '../data/leads.ts';
import { getListingWithAreas } from '../data/listings.ts';
import { getTenant } from '../data/tenants.ts';
import {
  type DerivedEvent,
  deriveEvents,
  derivePartEvent,
  EVENT_RETENTION_SECONDS,
  type EventEnvelope,
  eventId,
  formatEventTime,
  groupOf,
  type PublicResource,
  type SubjectKind,
} from '../domain/events.ts';
import type { TableChange } from './table-change.ts';

type Image = Record<string, unknown>;

/**
 * How each resource's table image becomes its public shape: the entity parses the item, and the
 * presenter is the very function the API's GET answers with (never a copy of it).
 */
type Presenter = (image: Image, areasOf: AreasReader) => Promise<PublicResource | undefined>;
type AreasReader = (tenantId: string, propertyId: string) => Promise<AreaMembershipRecord[]>;

const SUBJECTS: Record<SubjectKind, { entity: string; present: Presenter }> = {
  lead: { entity: 'lead', present: async (image) => parsed(Lead, image, toLeadOut) },
  inquiry: { entity: 'inquiry', present: async (image) => parsed(Inquiry, image, toInquiryOut) },
  activity: { entity: 'activity', present: async (image) => parsed(Activity, image, toActivityOut) },
  property: {
    entity: 'property',
    // The listing's Areas live beside it (their own items): read as GET reads them, once a change.
    present: async (image, areasOf) => {
      const property = Listing.parse({ Item: image }).data;
      if (!property) return undefined;
      return toPropertyOut(property, { areas: await areasOf(property.tenantId, property.id) });
    },
  },
};

/** Reads a listing's Areas on first use only, so a change's before and after share one read. */
function areasReader(): AreasReader {
  let read: Promise<AreaMembershipRecord[]> | undefined;
  return (tenantId, propertyId) => {
    // Strongly consistent: the change was written a moment ago.
    read ??= getListingWithAreas(tenantId, propertyId, { consistent: true }).then(
      (found) => found?.areas ?? [],
    );
    return read;
  };
}

function parsed<R>(
  entity: { parse: (input: { Item: Image }) => { data: R | null } },
  image: Image,
  present: (record: R) => PublicResource,
): PublicResource | undefined {
  const record = entity.parse({ Item: image }).data;
  return record ? present(record) : undefined;
}

const KIND_OF_ENTITY = new Map(Object.entries(SUBJECTS).map(([kind, s]) => [s.entity, kind as SubjectKind]));

/** True for the records the events log derives from (the resources and their parts). */
export function isEventSource(entity: string | undefined): boolean {
  return entity !== undefined && (KIND_OF_ENTITY.has(entity) || derivePartEvent(entity) !== undefined);
}

/** What a change emits, with the public resource each event's `data` is built from. */
interface PendingEvents {
  tenantId: string;
  events: DerivedEvent[];
  resource: PublicResource;
}

async function pendingEvents(change: TableChange): Promise<PendingEvents | undefined> {
  const entity = change.entity ?? '';
  const kind = KIND_OF_ENTITY.get(entity);
  if (kind) {
    if (!change.newImage) return undefined;
    const { present } = SUBJECTS[kind];
    const areasOf = areasReader();
    const before = change.oldImage ? await present(change.oldImage, areasOf) : undefined;
    const after = await present(change.newImage, areasOf);
    if (!after) return undefined;
    const events = deriveEvents(kind, before, after);
    if (!events.length) return undefined;
    let resource = after;
    if (kind === 'inquiry') {
      // Strongly consistent: the Lead was written in the Inquiry's transaction, a moment ago.
      const lead = await getLead(String(change.newImage.tenantId), String(after.lead_id), {
        consistent: true,
      });
      resource = { ...after, lead: lead ? toLeadOut(lead) : null };
    }
    return { tenantId: String(change.newImage.tenantId), events, resource };
  }
  const part = derivePartEvent(entity);
  const image = change.newImage ?? change.oldImage;
  if (!part || !image || part.kind !== 'property') return undefined;
  // A part's change shows in the resource as it is now: read it whole, as GET does.
  const tenantId = String(image.tenantId);
  const current = await getListingWithAreas(tenantId, String(image[part.ownerIdAttribute]), {
    consistent: true,
  });
  if (!current) return undefined;
  return {
    tenantId,
    events: [part.event],
    resource: toPropertyOut(current.property, { areas: current.areas }),
  };
}

let lastMicros = 0;

/** Now in epoch microseconds, strictly increasing in this process (events keep their order). */
function nowMicros(): number {
  const now = Math.floor((performance.timeOrigin + performance.now()) * 1000);
  lastMicros = Math.max(now, lastMicros + 1);
  return lastMicros;
}

const tenantSlugs = new Map<string, string>();

async function tenantSlug(tenantId: string): Promise<string | undefined> {
  const known = tenantSlugs.get(tenantId);
  if (known) return known;
  const tenant = await getTenant(tenantId);
  if (tenant) tenantSlugs.set(tenantId, tenant.slug);
  return tenant?.slug;
}

/** The event envelopes a table change emits, as event-log items. */
export async function eventsOf(change: TableChange): Promise<EventRecord[]> {
  if (!isEventSource(change.entity)) return [];
  const pending = await pendingEvents(change);
  if (!pending) return [];
  const slug = await tenantSlug(pending.tenantId);
  if (!slug) return [];
  return pending.events.map(({ type, extras }) => {
    const micros = nowMicros();
    const envelope: EventEnvelope = {
      id: eventId(change.eventId, type),
      type,
      version: 1,
      created_at: formatEventTime(micros),
      tenant: { slug },
      data: { ...pending.resource, ...extras },
    };
    return {
      tenantId: pending.tenantId,
      id: envelope.id,
      type,
      group: groupOf(type),
      createdAt: envelope.created_at,
      envelope: JSON.stringify(envelope),
      ttl: Math.floor(micros / 1_000_000) + EVENT_RETENTION_SECONDS,
    };
  });
}

/**
 * The events-log processor of the stream consumer: derives the change's events and writes each
 * once (a replayed batch finds them written and leaves them as they are).
 */
export async function recordEvents(change: TableChange): Promise<void> {
  // One change's events are independent items with their times already set: written together.
  await Promise.all((await eventsOf(change)).map(putEvent));
}
