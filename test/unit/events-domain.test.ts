import { describe, expect, it } from 'vitest';
import { toActivityOut } from '../../functions/contract/activities.ts';
import { toInquiryOut } from '../../functions/contract/inquiries.ts';
import { toLeadOut } from '../../functions/contract/leads.ts';
import { toPropertyOut } from '../../functions/contract/properties.ts';
import type { ActivityRecord } from '../../functions/data/activities.ts';
import type { InquiryRecord } from '../../functions/data/inquiries.ts';
import type { LeadRecord } from '../../functions/data/leads.ts';
import type { PropertyRecord } from '../../functions/data/properties.ts';
import {
  changedFields,
  deriveEvents,
  derivePartEvent,
  EVENT_TYPES,
  eventId,
  formatEventTime,
  groupOf,
  groupsCoveredBy,
  isEventType,
  normalizeEventTime,
} from '../../functions/domain/events.ts';

const T0 = '2026-11-20T10:00:00.000Z';
const T1 = '2026-11-20T11:00:00.000Z';

function lead(fields: Partial<LeadRecord> = {}) {
  return toLeadOut({
    tenantId: 't1',
    id: 'lead-1',
    name: 'Ana Pérez',
    email: 'ana@example.com',
    status: 'new',
    source: 'manual',
    ownerKey: 'unassigned',
    tierKey: 'unscored',
    isActive: true,
    createdAt: T0,
    updatedAt: T0,
    ...fields,
  } as LeadRecord);
}

function listing(fields: Partial<PropertyRecord> = {}) {
  return toPropertyOut({
    tenantId: 't1',
    id: 'p-1',
    title: 'Villa Sol',
    price: '250000.00',
    currency: 'EUR',
    sourceLanguage: 'en',
    aiEnrichment: true,
    slug: 'villa-sol',
    origin: 'api',
    createdBy: 'key',
    updatedBy: 'key',
    createdAt: T0,
    updatedAt: T0,
    ...fields,
  } as PropertyRecord);
}

const placed = { placeCode: 'ES-MA', placePath: [{ code: 'ES-MA', name: 'Marbella', kind: 'municipality' }] };

const activity = (fields: Partial<ActivityRecord> = {}) =>
  toActivityOut({
    tenantId: 't1',
    id: 'a-1',
    leadId: 'lead-1',
    kind: 'call',
    title: 'Call back',
    completed: false,
    createdBy: 'key',
    createdAt: T0,
    updatedAt: T0,
    ...fields,
  } as ActivityRecord);

const inquiry = toInquiryOut({
  tenantId: 't1',
  id: 'i-1',
  leadId: 'lead-1',
  propertyKey: 'none',
  channel: 'form',
  type: 'inquiry',
  occurredAt: T0,
  createdAt: T0,
  updatedAt: T0,
} as InquiryRecord);

const types = (events: { type: string }[]) => events.map((e) => e.type);

describe('deriveEvents: Leads', () => {
  it('a new Lead is lead.created; with an Owner also lead.assigned (previous null)', () => {
    expect(deriveEvents('lead', undefined, lead())).toEqual([{ type: 'lead.created', extras: {} }]);
    expect(deriveEvents('lead', undefined, lead({ assignedAgentId: 'ag-1' }))).toEqual([
      { type: 'lead.created', extras: {} },
      { type: 'lead.assigned', extras: { previous_assigned_agent_id: null } },
    ]);
  });

  it('a status move is lead.updated (status in changed_fields) and lead.status_changed with previous_status', () => {
    const events = deriveEvents('lead', lead(), lead({ status: 'contacted', updatedAt: T1 }));
    expect(events).toEqual([
      { type: 'lead.updated', extras: { changed_fields: ['status'] } },
      { type: 'lead.status_changed', extras: { previous_status: 'new' } },
    ]);
  });

  it('a new Owner is lead.assigned with previous_assigned_agent_id; unassigning is lead.updated only', () => {
    const before = lead({ assignedAgentId: 'ag-1' });
    expect(deriveEvents('lead', before, lead({ assignedAgentId: 'ag-2', updatedAt: T1 }))).toEqual([
      { type: 'lead.updated', extras: { changed_fields: ['assigned_agent_id'] } },
      { type: 'lead.assigned', extras: { previous_assigned_agent_id: 'ag-1' } },
    ]);
    expect(types(deriveEvents('lead', before, lead({ updatedAt: T1 })))).toEqual(['lead.updated']);
  });

  it('contact fields are lead.updated with their public names', () => {
    const events = deriveEvents(
      'lead',
      lead(),
      lead({ notes: 'Wants a sea view', phone: '+34600000000', updatedAt: T1 }),
    );
    expect(events).toEqual([{ type: 'lead.updated', extras: { changed_fields: ['phone', 'notes'] } }]);
  });

  it('scoring is lead.scored alone (score fields are not contact or pipeline fields); a rescore too', () => {
    const scored = lead({ score: 82, scoreTier: 'hot', tierKey: 'hot', scoredAt: T1, updatedAt: T1 });
    expect(deriveEvents('lead', lead(), scored)).toEqual([{ type: 'lead.scored', extras: {} }]);
    const rescored = lead({
      score: 82,
      scoreTier: 'hot',
      scoredAt: '2026-11-21T00:00:00.000Z',
      updatedAt: T1,
    });
    expect(types(deriveEvents('lead', scored, rescored))).toEqual(['lead.scored']);
  });

  it('archiving is lead.archived (and lead.updated of is_active)', () => {
    expect(deriveEvents('lead', lead(), lead({ isActive: false, updatedAt: T1 }))).toEqual([
      { type: 'lead.updated', extras: { changed_fields: ['is_active'] } },
      { type: 'lead.archived', extras: {} },
    ]);
  });

  it('a write that changes nothing public emits nothing (updated_at and internal fields alone)', () => {
    expect(deriveEvents('lead', lead(), lead())).toEqual([]);
    expect(
      deriveEvents('lead', lead(), lead({ updatedAt: T1, searchPrefixes: ['an'], ownerKey: 'x' })),
    ).toEqual([]);
  });

  it('a removed record emits nothing (nothing is hard-deleted through the interface)', () => {
    expect(deriveEvents('lead', lead(), undefined)).toEqual([]);
  });
});

describe('deriveEvents: listings', () => {
  it('a new listing is property.created; one created with a Place also property.went_live', () => {
    expect(types(deriveEvents('property', undefined, listing()))).toEqual(['property.created']);
    expect(types(deriveEvents('property', undefined, listing(placed)))).toEqual([
      'property.created',
      'property.went_live',
    ]);
  });

  it('a price change is property.updated and property.price_changed with the previous price and currency', () => {
    const events = deriveEvents(
      'property',
      listing(),
      listing({ price: '240000.00', currency: 'USD', updatedAt: T1 }),
    );
    expect(events).toEqual([
      { type: 'property.updated', extras: { changed_fields: ['price', 'currency'] } },
      {
        type: 'property.price_changed',
        extras: { previous_price: '250000.00', previous_currency: 'EUR', previous_rent_price: null },
      },
    ]);
  });

  it('gaining a Place while not archived is property.went_live; changed_fields use public names', () => {
    const events = deriveEvents('property', listing(), listing({ ...placed, updatedAt: T1 }));
    expect(events[0]).toEqual({
      type: 'property.updated',
      extras: { changed_fields: ['place_code', 'place', 'status', 'needs_location'] },
    });
    expect(types(events)).toEqual(['property.updated', 'property.went_live']);
  });

  it('archiving is property.updated and property.archived, never went_live', () => {
    const live = listing(placed);
    const events = deriveEvents('property', live, listing({ ...placed, archivedAt: T1, updatedAt: T1 }));
    expect(types(events)).toEqual(['property.updated', 'property.archived']);
    expect(events[0]?.extras.changed_fields).toEqual(['status', 'archived_at']);
  });

  it('a text edit is property.updated only; a no-op write nothing', () => {
    expect(deriveEvents('property', listing(), listing({ title: 'Villa Mar', updatedAt: T1 }))).toEqual([
      { type: 'property.updated', extras: { changed_fields: ['title'] } },
    ]);
    expect(deriveEvents('property', listing(), listing({ updatedAt: T1, enrichmentAttempts: 2 }))).toEqual(
      [],
    );
  });

  it('a change of a part of a listing (its Areas) is property.updated of that field', () => {
    expect(derivePartEvent('areaMembership')).toEqual({
      kind: 'property',
      ownerIdAttribute: 'propertyId',
      event: { type: 'property.updated', extras: { changed_fields: ['areas'] } },
    });
    expect(derivePartEvent('leadSearchToken')).toBeUndefined();
  });
});

describe('deriveEvents: Inquiries and Activities', () => {
  it('a new Inquiry is inquiry.created; an edit of one emits nothing', () => {
    expect(deriveEvents('inquiry', undefined, inquiry)).toEqual([{ type: 'inquiry.created', extras: {} }]);
    expect(deriveEvents('inquiry', inquiry, { ...inquiry, message: 'x' })).toEqual([]);
  });

  it('completing an Activity is activity.completed; reopening, editing or creating an open one nothing', () => {
    const done = activity({ completed: true, completedAt: T1, updatedAt: T1 });
    expect(deriveEvents('activity', activity(), done)).toEqual([{ type: 'activity.completed', extras: {} }]);
    expect(deriveEvents('activity', done, activity({ updatedAt: T1 }))).toEqual([]);
    expect(deriveEvents('activity', activity(), activity({ title: 'Other', updatedAt: T1 }))).toEqual([]);
    expect(deriveEvents('activity', undefined, activity())).toEqual([]);
  });
});

describe('the catalogue and scopes', () => {
  it('every type belongs to the group of its read scope', () => {
    expect(EVENT_TYPES.filter((t) => groupOf(t) === 'leads')).toEqual([
      'lead.created',
      'lead.updated',
      'lead.status_changed',
      'lead.assigned',
      'lead.scored',
      'lead.archived',
      'inquiry.created',
    ]);
    expect(EVENT_TYPES.filter((t) => groupOf(t) === 'activities')).toEqual(['activity.completed']);
    expect(EVENT_TYPES.filter((t) => groupOf(t) === 'properties')).toHaveLength(5);
    expect(isEventType('ping')).toBe(false);
    expect(isEventType('lead.created')).toBe(true);
  });

  it('read scopes cover their groups, a write scope implies its read, others cover nothing', () => {
    expect(groupsCoveredBy(['leads:read'])).toEqual(['leads']);
    expect(groupsCoveredBy(['properties:write', 'activities:read'])).toEqual(['activities', 'properties']);
    expect(groupsCoveredBy(['webhooks:manage'])).toEqual([]);
  });
});

describe('event ids and times', () => {
  it('ids are version 5 UUIDs, the same for the same record and type, different otherwise', () => {
    const id = eventId('record-1', 'lead.updated');
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(eventId('record-1', 'lead.updated')).toBe(id);
    expect(eventId('record-1', 'lead.status_changed')).not.toBe(id);
    expect(eventId('record-2', 'lead.updated')).not.toBe(id);
  });

  it('created_at carries microseconds and a UTC offset', () => {
    const micros = Date.parse('2026-11-23T21:30:00.123Z') * 1000 + 456;
    expect(formatEventTime(micros)).toBe('2026-11-23T21:30:00.123456+00:00');
  });

  it('since times are brought to the log form; without an offset they are refused', () => {
    expect(normalizeEventTime('2026-11-23T22:30:00.123456789+01:00')).toBe(
      '2026-11-23T21:30:00.123456+00:00',
    );
    expect(normalizeEventTime('2026-11-23T21:30:00Z')).toBe('2026-11-23T21:30:00.000000+00:00');
    expect(normalizeEventTime('2026-11-23T21:30')).toBeUndefined();
    expect(normalizeEventTime('2026-11-23T21:30:00')).toBeUndefined();
    expect(normalizeEventTime('2026-13-45T21:30:00Z')).toBeUndefined();
  });

  it('changedFields compares values deeply', () => {
    expect(changedFields({ a: [1, { b: 2 }], c: 1 }, { a: [1, { b: 2 }], c: 1 })).toEqual([]);
    expect(changedFields({ a: [1, { b: 2 }] }, { a: [1, { b: 3 }] })).toEqual(['a']);
  });
});
