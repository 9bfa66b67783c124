/**
 * What the API documents must follow a change the soak's driver made and saw answered: the events
 * of its event catalogue with their key fields, derived here from the driver's own view of each
 * resource (the answers it got), never from the system's event log or its event code. The audit
 * (audit.ts) counts these against what the stack holds once it settled.
 */
import type { TenantLedger } from './ledger.ts';

/** A resource as the driver last saw it answered: its public fields. */
export type View = Record<string, unknown>;

/**
 * The Lead fields a driver's change can move (lead.updated is documented for "contact or pipeline
 * fields"). Score fields are written by scoring (its own event, lead.scored); `updated_at` moves
 * with any write.
 */
export const LEAD_CHANGE_FIELDS = [
  'name',
  'email',
  'phone',
  'locale',
  'notes',
  'status',
  'source',
  'assigned_agent_id',
  'is_active',
  'campaign',
] as const;

/**
 * Listing fields written by work that runs after the answer (an image import reaching ready, AI
 * enrichment), or that move with every write: a driver's view of them is stale by design, so a
 * driver change is judged on the other fields.
 */
export const LISTING_ASYNC_FIELDS = new Set([
  'updated_at',
  'images',
  'cover_image',
  'enrichment_status',
  'highlights',
  'seo_description',
  'translations',
  'untranslated',
  'title',
  'description',
]);

const same = (a: unknown, b: unknown) => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);

/**
 * The key fields of an event, as one comparable string: the ledger's expectation and the log's
 * event must agree on them (`changed_fields` as a sorted set; a previous value with the new one).
 */
export function eventKey(type: string, data: Record<string, unknown>): string {
  switch (type) {
    case 'lead.updated':
    case 'property.updated':
      return [...((data.changed_fields as string[] | undefined) ?? [])].sort().join(',');
    case 'lead.status_changed':
      return `${String(data.previous_status)}→${String(data.status)}`;
    case 'lead.assigned':
      return `${String(data.previous_assigned_agent_id ?? null)}→${String(data.assigned_agent_id ?? null)}`;
    case 'property.price_changed':
      return `${String(data.previous_price ?? null)}→${String(data.price ?? null)}`;
    default:
      return '';
  }
}

function expect(tenant: TenantLedger, type: string, subjectId: string, key: string, because: string): void {
  tenant.expectedEvents.push({ type, subjectId, key, because });
}

/**
 * A Lead the driver saw created (`before` undefined) or changed, from `before` to `after`: what the
 * events log must hold for it. Returns the view to keep.
 */
export function expectLeadChange(
  tenant: TenantLedger,
  id: string,
  before: View | undefined,
  after: View,
  because: string,
): View {
  const view = Object.fromEntries(LEAD_CHANGE_FIELDS.map((f) => [f, after[f] ?? null]));
  if (!before) {
    expect(tenant, 'lead.created', id, '', because);
    if (view.assigned_agent_id !== null)
      expect(tenant, 'lead.assigned', id, `null→${String(view.assigned_agent_id)}`, because);
    return view;
  }
  const changed = LEAD_CHANGE_FIELDS.filter((f) => !same(before[f], view[f]));
  if (changed.length) expect(tenant, 'lead.updated', id, [...changed].sort().join(','), because);
  if (changed.includes('status'))
    expect(tenant, 'lead.status_changed', id, `${String(before.status)}→${String(view.status)}`, because);
  if (changed.includes('assigned_agent_id') && view.assigned_agent_id !== null) {
    expect(
      tenant,
      'lead.assigned',
      id,
      `${String(before.assigned_agent_id ?? null)}→${String(view.assigned_agent_id)}`,
      because,
    );
  }
  if (before.is_active === true && view.is_active === false) expect(tenant, 'lead.archived', id, '', because);
  return view;
}

/**
 * A listing the driver saw created or changed: its events, judged on the fields no later work
 * writes (LISTING_ASYNC_FIELDS). Returns the view to keep.
 */
export function expectListingChange(
  tenant: TenantLedger,
  id: string,
  before: View | undefined,
  after: View,
  because: string,
): View {
  const view = Object.fromEntries(Object.entries(after).filter(([f]) => !LISTING_ASYNC_FIELDS.has(f)));
  const cameLive = view.status === 'live' && before?.status !== 'live';
  if (!before) {
    expect(tenant, 'property.created', id, '', because);
    if (cameLive) expect(tenant, 'property.went_live', id, '', because);
    return view;
  }
  const names = [...new Set([...Object.keys(before), ...Object.keys(view)])];
  const changed = names.filter((f) => !same(before[f], view[f])).sort();
  if (changed.length) expect(tenant, 'property.updated', id, changed.join(','), because);
  if (cameLive) expect(tenant, 'property.went_live', id, '', because);
  if (['price', 'rent_price', 'currency'].some((f) => changed.includes(f)))
    expect(tenant, 'property.price_changed', id, `${String(before.price)}→${String(view.price)}`, because);
  if (view.status === 'archived' && before.status !== 'archived')
    expect(tenant, 'property.archived', id, '', because);
  return view;
}

/** An image import the driver saw reach ready: the listing's gallery changed. */
export function expectImportReady(tenant: TenantLedger, propertyId: string, fields: string): void {
  expect(tenant, 'property.updated', propertyId, fields, 'photo import ready');
}
