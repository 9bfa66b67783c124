/**
 * The examples of docs/openapi.json: a request and an answer for every operation, and a payload for
 * every event type. They are built from one set of fixtures (a Tenant's listing, Lead, Inquiry,
 * Activity, Agent, Place, Area, webhook endpoint), and what the service derives from a request is
 * derived here by the contract's own parsers: a listing's answer carries the price its create
 * request sent, as PropertyCreate reads it (the scale it was sent with), the criteria answer the
 * bounds LeadCriteriaIn makes of a number and a string. test/docs/openapi-examples.test.ts validates
 * every example against the schema it illustrates (a stale one fails the gate), and the e2e test of
 * the event payloads (test/e2e/event-payloads.test.ts) sends the request examples to the real API.
 */
import { LeadCriteriaIn } from '../functions/contract/lead-criteria.ts';
import { LeadIngestIn, LeadManualCreate } from '../functions/contract/leads.ts';
import { PropertyCreate } from '../functions/contract/properties.ts';
import { amenityList } from '../functions/contract/site.ts';
import { DEFAULT_THEME } from '../functions/contract/theme.ts';
import { amenityLabel } from '../functions/domain/amenities.ts';
import { EVENT_TYPES, type EventType } from '../functions/domain/events.ts';

// ── Fixtures: the ids and times of one Tenant's objects ──

const IDS = {
  property: '3f1c2a9e-5b7d-4c1e-9a3f-2d4b6c8e0f11',
  secondProperty: '7a2d4f6b-8c1e-4d3a-b5f7-9e1c3a5b7d22',
  image: 'b4e6c8a0-2d4f-4a6c-8e0b-1d3f5a7c9e33',
  importId: 'c5f7d9b1-3e5a-4b7d-9f1c-2e4a6b8d0f44',
  lead: '9d8c7b6a-5f4e-4d3c-8b2a-1f0e9d8c7b55',
  inquiry: 'e1f2a3b4-c5d6-4e7f-8a9b-0c1d2e3f4a66',
  activity: 'f2a3b4c5-d6e7-4f8a-9b0c-1d2e3f4a5b77',
  agent: 'a1b2c3d4-e5f6-4a7b-8c9d-0e1f2a3b4c88',
  previousAgent: 'a9b8c7d6-e5f4-4a3b-8c2d-1e0f9a8b7c99',
  user: 'd4c3b2a1-f6e5-4b7a-9d8c-4c3b2a1f0e00',
  area: '5e6f7a8b-9c0d-4e1f-a2b3-c4d5e6f7a812',
  endpoint: '6f7a8b9c-0d1e-4f2a-b3c4-d5e6f7a8b923',
  delivery: '8b9c0d1e-2f3a-4b4c-95d6-e7f8a9b0c134',
  event: '0d1e2f3a-4b5c-4d6e-8f7a-9b0c1d2e3f45',
  siteInquiry: '1e2f3a4b-5c6d-4e7f-9a8b-0c1d2e3f4a56',
} as const;

const T = {
  created: '2026-03-02T09:15:00.000Z',
  updated: '2026-03-02T10:40:00.000Z',
  occurred: '2026-03-02T10:30:00.000Z',
  due: '2026-03-05T08:30:00.000Z',
  reminder: '2026-03-05T08:00:00.000Z',
  completed: '2026-03-05T09:10:00.000Z',
  scored: '2026-03-02T10:31:00.000Z',
  sent: '2026-03-03T07:00:00.000Z',
  event: '2026-03-02T10:40:00.123456+00:00',
} as const;

const TENANT = { slug: 'costa-homes' };
const CDN = 'https://photos.example.com/costa-homes';

const PLACE_PATH = [
  { code: 'ES', name: 'Spain', kind: 'country' },
  { code: 'ES-AN', name: 'Andalusia', kind: 'region' },
  { code: 'ES-MA', name: 'Málaga', kind: 'province' },
  { code: 'ES-MA-MAR', name: 'Marbella', kind: 'municipality' },
];
const PLACE = {
  code: 'ES-MA-MAR',
  name: 'Marbella',
  kind: 'municipality',
  parent_code: 'ES-MA',
  path: PLACE_PATH,
  short: 'Marbella, Málaga',
  long: 'Marbella, Málaga, Andalusia, Spain',
};
const LISTING_PLACE = { code: PLACE.code, path: PLACE_PATH, short: PLACE.short, long: PLACE.long };

const AREA = {
  id: IDS.area,
  kind: 'zone',
  name: 'Golden Mile',
  place_codes: ['ES-MA-MAR'],
  created_at: T.created,
  updated_at: T.created,
};

const AGENT = {
  id: IDS.agent,
  slug: 'marta-ruiz',
  name: 'Marta Ruiz',
  email: 'marta@costa-homes.example',
  phone: '+34600111222',
  is_admin: false,
  created_at: T.created,
  updated_at: T.created,
};

// ── Listings and photos ──

/** POST /v1/properties: what a feed sends for a new listing. */
const CREATE_PROPERTY = {
  title: 'Villa Sol',
  description: 'A south-facing villa with a garden, five minutes from the beach.',
  listing_type: 'sale',
  price: '450000',
  currency: 'EUR',
  property_type: 'villa',
  bedrooms: 4,
  bathrooms: '2.5',
  area: '210',
  amenities: ['pool', 'private_pool'],
  place_code: 'ES-MA-MAR',
  internal_ref: 'CH-1042',
  highlights: ['Sea views', 'Walk to the beach'],
  agent_id: IDS.agent,
};
const created = PropertyCreate.parse(CREATE_PROPERTY);

const RENDITIONS = [320, 640, 1024]
  .map((width) => ({
    url: `${CDN}/${IDS.image}/${width}.webp`,
    width,
    height: Math.round((width * 2) / 3),
    type: 'image/webp',
  }))
  .concat([{ url: `${CDN}/${IDS.image}/1024.jpg`, width: 1024, height: 683, type: 'image/jpeg' }]);

const IMAGE = {
  id: IDS.image,
  status: 'ready',
  url: `${CDN}/${IDS.image}/1024.jpg`,
  width: 1024,
  height: 683,
  content_type: 'image/jpeg',
  size_bytes: 184_320,
  sort_order: 0,
  is_primary: true,
  created_at: T.updated,
  renditions: RENDITIONS,
};

/** The listing CREATE_PROPERTY made, as GET /v1/properties/{property_id} answers it. */
const PROPERTY = {
  id: IDS.property,
  title: created.title,
  description: created.description ?? null,
  highlights: created.highlights ?? [],
  seo_description: null,
  language: 'en',
  source_language: 'en',
  untranslated: [],
  listing_type: created.listing_type ?? null,
  price: created.price ?? null,
  currency: created.currency ?? null,
  rent_price: null,
  property_type: created.property_type ?? null,
  bedrooms: created.bedrooms ?? null,
  bathrooms: created.bathrooms ?? null,
  area: created.area ?? null,
  lot_area: null,
  parking_spaces: null,
  year_built: null,
  floor: null,
  hoa_fee: null,
  amenities: created.amenities ?? [],
  address: null,
  latitude: null,
  longitude: null,
  location_precision: 'exact',
  is_featured: false,
  video_url: null,
  tour_url: null,
  place_code: created.place_code ?? null,
  place: LISTING_PLACE,
  areas: [{ id: IDS.area, kind: 'zone', name: 'Golden Mile', via: 'rule' }],
  images: [IMAGE],
  agent_id: created.agent_id ?? null,
  internal_ref: created.internal_ref ?? null,
  ai_enrichment: true,
  enrichment_status: 'pending',
  status: 'live',
  needs_location: false,
  origin: 'api',
  slug: 'villa-sol-marbella',
  created_at: T.created,
  updated_at: T.updated,
  archived_at: null,
};

/** PATCH /v1/properties/{property_id}: a price change (the event property.price_changed follows). */
const UPDATE_PROPERTY = { price: '435000' };
const PROPERTY_AFTER_PATCH = { ...PROPERTY, price: UPDATE_PROPERTY.price };

const IMAGE_IMPORT = {
  id: IDS.importId,
  status: 'ready',
  url: 'https://media.example.com/villa-sol/terrace.jpg',
  object_key: null,
  image: IMAGE,
  failure_reason: null,
  failure_status: null,
  created_at: T.created,
  updated_at: T.updated,
};

// ── Leads, Inquiries, Activities ──

const CREATE_LEAD = {
  name: 'Ana García',
  email: 'ana.garcia@example.com',
  phone: '+34 600 123 456',
  notes: 'Walk-in at the Marbella office; looking for a villa with a pool.',
  assigned_agent_id: IDS.agent,
};
const lead = LeadManualCreate.parse(CREATE_LEAD);

const LEAD = {
  id: IDS.lead,
  name: lead.name,
  email: lead.email ?? null,
  phone: '+34600123456',
  locale: 'es',
  notes: lead.notes ?? null,
  status: 'new',
  source: 'manual',
  assigned_agent_id: IDS.agent,
  is_active: true,
  score: 82,
  score_tier: 'hot',
  buyer_type: 'relocation',
  recommended_action: 'call_immediately',
  score_reasons: ['Asked about a listing within a day', 'Budget matches the listing'],
  scored_at: T.scored,
  campaign: null,
  created_at: T.created,
  updated_at: T.updated,
};

const UPDATE_LEAD = { status: 'contacted', notes: 'Called back; viewing on Thursday.' };
const LEAD_AFTER_PATCH = { ...LEAD, ...UPDATE_LEAD };

/** POST /v1/leads:ingest: an inquiry from a portal, about the listing by its reference. */
const INGEST_LEAD = {
  source: 'idealista',
  type: 'inquiry',
  person: { name: 'Ana García', email: 'ana.garcia@example.com', phone: '+34 600 123 456', locale: 'es' },
  campaign: 'spring-2026',
  message: 'Is the villa still available? I would like to visit next week.',
  occurred_at: '2026-03-02T10:30:00Z',
  property_ref: 'CH-1042',
};
const ingested = LeadIngestIn.parse(INGEST_LEAD);

const INGESTED_LEAD = { ...LEAD, source: 'api', campaign: ingested.campaign ?? null };

const INQUIRY = {
  id: IDS.inquiry,
  lead_id: IDS.lead,
  property_id: IDS.property,
  channel: 'form',
  via: null,
  page_url: null,
  message: ingested.message ?? null,
  source: ingested.source,
  campaign: ingested.campaign ?? null,
  occurred_at: ingested.occurred_at ?? T.occurred,
  created_at: T.updated,
  updated_at: T.updated,
};

const CREATE_ACTIVITY = {
  kind: 'visit',
  title: 'Viewing at Villa Sol',
  body: 'Meet at the gate; bring the floor plan.',
  due_at: '2026-03-05T09:30:00+01:00',
  reminder_at: '2026-03-05T09:00:00+01:00',
  property_id: IDS.property,
};

const ACTIVITY = {
  id: IDS.activity,
  lead_id: IDS.lead,
  kind: 'visit',
  title: CREATE_ACTIVITY.title,
  body: CREATE_ACTIVITY.body,
  due_at: T.due,
  reminder_at: T.reminder,
  assignee_user_id: null,
  property_id: IDS.property,
  completed: false,
  completed_at: null,
  created_at: T.created,
  updated_at: T.created,
};

const UPDATE_ACTIVITY = { completed: true };
const COMPLETED_ACTIVITY = {
  ...ACTIVITY,
  completed: true,
  completed_at: T.completed,
  updated_at: T.completed,
};

/** PUT /v1/leads/{lead_id}/criteria: a bound as a number and one as a string. */
const PUT_CRITERIA = {
  listing_type: 'sale',
  min_price: 250000,
  max_price: '480000.50',
  currency: 'eur',
  min_beds: 3,
  min_baths: '1.5',
  property_types: ['Villa', 'townhouse'],
  amenities: ['pool'],
  place_codes: ['ES-MA-MAR'],
  area_ids: [IDS.area],
  notes: 'Needs a garden for the dog.',
};
const criteria = LeadCriteriaIn.parse(PUT_CRITERIA);

/** The criteria as the service keeps them: each decimal at the scale it was sent, currency upper-case. */
const LEAD_CRITERIA = {
  listing_type: criteria.listing_type ?? null,
  min_price: criteria.min_price ?? null,
  max_price: criteria.max_price ?? null,
  currency: criteria.currency ?? null,
  min_beds: criteria.min_beds ?? null,
  min_baths: criteria.min_baths ?? null,
  property_types: criteria.property_types ?? [],
  amenities: criteria.amenities ?? [],
  place_codes: criteria.place_codes ?? [],
  area_ids: criteria.area_ids ?? [],
  notes: criteria.notes ?? null,
  updated_at: T.updated,
  places: [{ code: PLACE.code, name: PLACE.name, kind: PLACE.kind, short: PLACE.short, long: PLACE.long }],
  areas: [{ id: IDS.area, kind: 'zone', name: 'Golden Mile' }],
};

const MATCH = {
  property_id: IDS.property,
  title: PROPERTY.title,
  slug: PROPERTY.slug,
  listing_type: PROPERTY.listing_type,
  property_type: PROPERTY.property_type,
  price: PROPERTY.price,
  rent_price: null,
  currency: PROPERTY.currency,
  bedrooms: PROPERTY.bedrooms,
  bathrooms: PROPERTY.bathrooms,
  place_code: PROPERTY.place_code,
  created_at: T.created,
  reasons: ['listing_type', 'price', 'min_beds', 'min_baths', 'property_types', 'amenities', 'place_codes'],
  sent_at: null,
};

const LEAD_PROPERTY = {
  property_id: IDS.property,
  property_title: PROPERTY.title,
  role: 'interested',
  source: 'manual',
  created_at: T.updated,
};

// ── Webhooks ──

const ENDPOINT = {
  id: IDS.endpoint,
  url: 'https://crm.example.com/hooks/listings',
  events: ['lead.created', 'inquiry.created', 'property.price_changed'],
  enabled: true,
  created_via: 'api',
  created_at: T.created,
  updated_at: T.created,
  disabled_reason: null,
  consecutive_failures: 0,
};
const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';

const DELIVERY = {
  id: IDS.delivery,
  event_id: IDS.event,
  event_type: 'lead.created',
  status: 'succeeded',
  attempts: [
    {
      number: 1,
      trigger: 'auto',
      at: T.updated,
      status_code: 204,
      duration_ms: 142,
      error: null,
      response_body: '',
    },
  ],
  attempt_count: 1,
  next_attempt_at: null,
  created_at: T.updated,
};

// ── The website (publishable key) ──

const SITE_LISTING = {
  id: PROPERTY.id,
  slug: PROPERTY.slug,
  title: PROPERTY.title,
  description: PROPERTY.description,
  highlights: PROPERTY.highlights,
  seo_description: PROPERTY.seo_description,
  language: 'en',
  listing_type: PROPERTY.listing_type,
  price: PROPERTY.price,
  currency: PROPERTY.currency,
  rent_price: PROPERTY.rent_price,
  property_type: PROPERTY.property_type,
  bedrooms: PROPERTY.bedrooms,
  bathrooms: PROPERTY.bathrooms,
  area: PROPERTY.area,
  lot_area: PROPERTY.lot_area,
  parking_spaces: PROPERTY.parking_spaces,
  year_built: PROPERTY.year_built,
  floor: PROPERTY.floor,
  hoa_fee: PROPERTY.hoa_fee,
  amenities: PROPERTY.amenities.map((code) => ({ code, label: amenityLabel(code as 'pool', 'en') })),
  address: PROPERTY.address,
  latitude: PROPERTY.latitude,
  longitude: PROPERTY.longitude,
  location_precision: PROPERTY.location_precision,
  is_featured: PROPERTY.is_featured,
  video_url: PROPERTY.video_url,
  tour_url: PROPERTY.tour_url,
  images: [IMAGE],
  place: LISTING_PLACE,
  agent: { slug: AGENT.slug, name: AGENT.name },
  created_at: PROPERTY.created_at,
  updated_at: PROPERTY.updated_at,
};
const SITE_LISTINGS = { items: [SITE_LISTING], total: 1 };
const SITE_LOCATION = { slug: 'marbella', kind: 'place', name: 'Marbella', count: 12, type: 'municipality' };
const SITE_AGENT = {
  slug: AGENT.slug,
  name: AGENT.name,
  email: AGENT.email,
  phone: AGENT.phone,
  photo_url: null,
  listing_count: 12,
};

const page = <T>(item: T) => ({
  data: [item],
  next_cursor: 'eyJwIjoiMjAyNi0wMy0wMlQxMDo0MDowMC4wMDBaIn0.c2ln',
});
const lastPage = <T>(item: T) => ({ data: [item], next_cursor: null });

// ── Events ──

/** The event of `type` about `data`, as delivered and as GET /v1/events lists it. */
const event = (type: string, data: unknown) => ({
  id: IDS.event,
  type,
  version: 1,
  created_at: T.event,
  tenant: TENANT,
  data,
});

/** The payload of each event type, its `data` the resource as its GET answers and the type's extras. */
export const EVENT_EXAMPLES: Record<EventType | 'ping', unknown> = {
  'lead.created': event('lead.created', LEAD),
  'lead.updated': event('lead.updated', { ...LEAD_AFTER_PATCH, changed_fields: ['status', 'notes'] }),
  'lead.status_changed': event('lead.status_changed', { ...LEAD_AFTER_PATCH, previous_status: 'new' }),
  'lead.assigned': event('lead.assigned', { ...LEAD, previous_assigned_agent_id: IDS.previousAgent }),
  'lead.scored': event('lead.scored', LEAD),
  'lead.archived': event('lead.archived', { ...LEAD, is_active: false }),
  'inquiry.created': event('inquiry.created', { ...INQUIRY, lead: INGESTED_LEAD }),
  'activity.completed': event('activity.completed', COMPLETED_ACTIVITY),
  'property.created': event('property.created', PROPERTY),
  'property.updated': event('property.updated', { ...PROPERTY, changed_fields: ['images'] }),
  'property.went_live': event('property.went_live', PROPERTY),
  'property.price_changed': event('property.price_changed', {
    ...PROPERTY_AFTER_PATCH,
    previous_price: PROPERTY.price,
    previous_currency: PROPERTY.currency,
    previous_rent_price: null,
  }),
  'property.archived': event('property.archived', {
    ...PROPERTY,
    status: 'archived',
    archived_at: T.updated,
  }),
  ping: event('ping', { endpoint_id: IDS.endpoint }),
};

// ── Operations ──

export interface OperationExample {
  /** The request body (operations that take one). */
  request?: unknown;
  /** The answer by status, for each success status with a body. */
  responses: Record<string, unknown>;
}

/** An example of every operation, by operationId. */
export const OPERATION_EXAMPLES: Record<string, OperationExample> = {
  listPlaces: { responses: { '200': lastPage(PLACE) } },
  createProperty: { request: CREATE_PROPERTY, responses: { '201': PROPERTY } },
  listProperties: { responses: { '200': page(PROPERTY) } },
  getProperty: { responses: { '200': PROPERTY } },
  updateProperty: { request: UPDATE_PROPERTY, responses: { '200': PROPERTY_AFTER_PATCH } },
  archiveProperty: { responses: {} },
  upsertPropertyByRef: { request: CREATE_PROPERTY, responses: { '200': PROPERTY, '201': PROPERTY } },
  importPropertyImage: {
    request: { url: IMAGE_IMPORT.url, is_primary: true, sort_order: 0 },
    responses: {
      '200': IMAGE_IMPORT,
      '202': { ...IMAGE_IMPORT, status: 'pending', image: null, updated_at: T.created },
    },
  },
  getPropertyImageImport: { responses: { '200': IMAGE_IMPORT } },
  createPropertyImageUpload: {
    request: { content_type: 'image/jpeg', size_bytes: 184_320 },
    responses: {
      '201': {
        url: `https://uploads.example.com/costa-homes/${IDS.property}/${IDS.image}?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Expires=900&X-Amz-Signature=4f2a9c1e`,
        method: 'PUT',
        headers: { 'content-type': 'image/jpeg', 'content-length': '184320' },
        object_key: `uploads/${IDS.property}/${IDS.image}`,
        expires_at: '2026-03-02T10:55:00.000Z',
      },
    },
  },
  confirmPropertyImage: {
    request: { object_key: `uploads/${IDS.property}/${IDS.image}`, is_primary: true },
    responses: {
      '201': {
        ...IMAGE,
        status: 'processing',
        url: null,
        width: null,
        height: null,
        content_type: null,
        size_bytes: null,
        renditions: [],
      },
      '200': IMAGE,
    },
  },
  updatePropertyImage: { request: { sort_order: 0, is_primary: true }, responses: { '200': IMAGE } },
  deletePropertyImage: { responses: {} },
  listAreas: { responses: { '200': lastPage(AREA) } },
  createLead: {
    request: CREATE_LEAD,
    responses: {
      '201': {
        ...LEAD,
        score: null,
        score_tier: null,
        buyer_type: null,
        recommended_action: null,
        score_reasons: [],
        scored_at: null,
      },
      '200': LEAD,
    },
  },
  listLeads: { responses: { '200': page(LEAD) } },
  ingestLead: {
    request: INGEST_LEAD,
    responses: {
      '201': { lead: INGESTED_LEAD, inquiry_id: IDS.inquiry, activity_id: null, warnings: [] },
      '200': {
        lead: INGESTED_LEAD,
        inquiry_id: IDS.inquiry,
        activity_id: null,
        warnings: [
          {
            code: 'agent_unmatched',
            detail: 'The Lead already has an Owner: the listing’s Agent was not assigned',
          },
        ],
      },
    },
  },
  getLead: { responses: { '200': LEAD } },
  updateLead: { request: UPDATE_LEAD, responses: { '200': LEAD_AFTER_PATCH } },
  archiveLead: { responses: {} },
  listInquiries: { responses: { '200': page(INQUIRY) } },
  getInquiry: { responses: { '200': INQUIRY } },
  createActivity: { request: CREATE_ACTIVITY, responses: { '201': ACTIVITY } },
  listLeadActivities: { responses: { '200': page(ACTIVITY) } },
  listActivities: { responses: { '200': page(ACTIVITY) } },
  getActivity: { responses: { '200': ACTIVITY } },
  updateActivity: { request: UPDATE_ACTIVITY, responses: { '200': COMPLETED_ACTIVITY } },
  listLeadProperties: { responses: { '200': { data: [LEAD_PROPERTY] } } },
  linkLeadProperty: {
    request: { property_id: IDS.property, role: 'interested' },
    responses: { '201': LEAD_PROPERTY, '200': LEAD_PROPERTY },
  },
  getLeadCriteria: { responses: { '200': LEAD_CRITERIA } },
  putLeadCriteria: { request: PUT_CRITERIA, responses: { '200': LEAD_CRITERIA } },
  listLeadMatches: { responses: { '200': { data: [MATCH] } } },
  sendLeadMatches: {
    request: { property_ids: [IDS.property] },
    responses: { '200': { sent: [{ property_id: IDS.property, sent_at: T.sent }] } },
  },
  listAgents: { responses: { '200': lastPage(AGENT) } },
  getAgent: { responses: { '200': AGENT } },
  listEvents: { responses: { '200': page(EVENT_EXAMPLES['lead.created']) } },
  getEvent: { responses: { '200': EVENT_EXAMPLES['property.price_changed'] } },
  createWebhookSubscription: {
    request: { url: ENDPOINT.url, events: ENDPOINT.events },
    responses: { '201': { ...ENDPOINT, secret: SECRET } },
  },
  listWebhooks: { responses: { '200': lastPage(ENDPOINT) } },
  getWebhook: { responses: { '200': ENDPOINT } },
  updateWebhook: { request: { enabled: true }, responses: { '200': ENDPOINT } },
  deleteWebhookSubscription: { responses: {} },
  listWebhookDeliveries: { responses: { '200': page(DELIVERY) } },
  redeliverWebhookDelivery: {
    responses: {
      '202': {
        ...DELIVERY,
        status: 'pending',
        attempts: [...DELIVERY.attempts],
        next_attempt_at: T.updated,
      },
    },
  },
  recoverWebhookDeliveries: {
    request: { since: '2026-03-01T00:00:00Z' },
    responses: { '202': { count: 3 } },
  },
  testWebhook: {
    responses: {
      '202': {
        ...DELIVERY,
        event_type: 'ping',
        status: 'pending',
        attempts: [],
        attempt_count: 0,
        next_attempt_at: T.updated,
      },
    },
  },
  rotateWebhookSecret: { responses: { '200': { secret: SECRET } } },
  searchSiteProperties: { responses: { '200': SITE_LISTINGS } },
  getSitePropertyBySlug: {
    responses: { '200': { ...SITE_LISTING, is_canonical: true, canonical_slug: SITE_LISTING.slug } },
  },
  getSitePropertyById: { responses: { '200': { ...SITE_LISTING, available: true } } },
  listSimilarBySlug: { responses: { '200': SITE_LISTINGS } },
  listSimilarById: { responses: { '200': SITE_LISTINGS } },
  listSiteLocations: { responses: { '200': { items: [SITE_LOCATION], total: 1 } } },
  getSiteLocation: { responses: { '200': SITE_LOCATION } },
  listSiteAgents: { responses: { '200': { items: [SITE_AGENT], total: 1 } } },
  getSiteAgentBySlug: { responses: { '200': SITE_AGENT } },
  listSiteAmenities: { responses: { '200': amenityList('en') } },
  getTheme: {
    responses: {
      '200': {
        ...DEFAULT_THEME,
        languages: ['en', 'es'],
        default_language: 'en',
        website: 'https://www.costa-homes.example',
      },
    },
  },
  createSiteLead: {
    request: {
      name: 'Ana García',
      email: 'ana.garcia@example.com',
      message: 'Is the villa still available?',
      property_id: IDS.property,
      turnstile: 'XXXX.DUMMY.TOKEN.XXXX',
    },
    responses: { '201': { id: IDS.siteInquiry } },
  },
  countSitePropertyView: { responses: {} },
};

/** Every event type has an example (checked here, where a new type would first be missed). */
for (const type of EVENT_TYPES) {
  if (!(type in EVENT_EXAMPLES)) throw new Error(`No example of the event ${type}`);
}

/** The request examples the e2e test sends to the real API (kept apart from the ids above). */
export const REQUEST_FIXTURES = {
  createProperty: CREATE_PROPERTY,
  updateProperty: UPDATE_PROPERTY,
  createLead: CREATE_LEAD,
  updateLead: UPDATE_LEAD,
  ingestLead: INGEST_LEAD,
  createActivity: CREATE_ACTIVITY,
  updateActivity: UPDATE_ACTIVITY,
  putLeadCriteria: PUT_CRITERIA,
} as const;
