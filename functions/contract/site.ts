import * as z from 'zod/mini';
import type { AgentRecord } from '../data/agents.ts';
import type { ListingRecord } from '../data/listings.ts';
import { AMENITY_CODES, type AmenityCode as AmenityCodeValue, amenityLabel } from '../domain/amenities.ts';
import { APPROXIMATE_LOCATION } from '../domain/coordinates.ts';
import { publicLocation, SITE_SORTS, type SiteLocation } from '../domain/site-search.ts';
import { coercedNumber } from '../kernel/zod.ts';
import { PathEntryOut } from './places.ts';
import {
  LOCATION_PRECISIONS,
  listingFactFields,
  listingMediaFields,
  listingTextFields,
  toListingFacts,
  toListingMedia,
  toListingPlace,
  toListingText,
  toSiteGalleryOut,
} from './properties.ts';
import { ImageOut } from './property-images.ts';
import { AmenityCode, Money, QueryBoolean, trimmedText, Uuid } from './shared.ts';

/**
 * The query every site call takes (docs/site-api.md): the publishable key, the page's origin and the
 * Site Language to answer in (checked against the Tenant's languages by the handler).
 */
export const SiteQuery = z.object({
  key: z
    .string()
    .check(
      z.describe('The publishable key (svc_pk_…). A secret key here is refused with 400 and marked exposed'),
    ),
  origin: z.optional(
    z
      .string()
      .check(
        z.describe(
          "The page's origin (https://www.example.com). Required from a browser on reads (it must equal the Origin header); optional on the POSTs",
        ),
      ),
  ),
  locale: z.optional(
    z
      .string()
      .check(
        z.regex(/^[a-z]{2,3}(-[A-Z]{2})?$/, 'Must be a language code such as en or pt-BR'),
        z.describe("One of the Tenant's Site Languages; the default language when omitted"),
      ),
  ),
});

const CommaList = z.pipe(
  z.string(),
  z.transform((v) =>
    v
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean),
  ),
);

/** GET /v1/site/properties. */
export const SiteSearchQuery = z.extend(SiteQuery, {
  listing: z.optional(z.enum(['sale', 'rent'])),
  location: z.optional(
    z.string().check(z.minLength(1), z.maxLength(200), z.describe('A slug from GET /v1/site/locations')),
  ),
  type: z.optional(trimmedText(100).check(z.toLowerCase(), z.describe('A property_type'))),
  min_price: z.optional(Money),
  max_price: z.optional(Money),
  beds: z.optional(
    coercedNumber({ message: 'Must be an integer' }).check(
      z.int('Must be an integer'),
      z.gte(0),
      z.lte(1000),
    ),
  ),
  amenities: z.optional(
    z
      .pipe(CommaList, z.array(AmenityCode))
      .check(z.describe('Comma-separated amenity codes, every one required')),
  ),
  q: z.optional(
    z.string().check(z.maxLength(200), z.describe('Words in the title, description, address or Place')),
  ),
  featured: z.optional(QueryBoolean),
  sort: z._default(z.enum(SITE_SORTS), 'newest'),
  limit: z._default(
    coercedNumber({ message: 'Must be an integer' }).check(z.int('Must be an integer'), z.gte(1), z.lte(50)),
    12,
  ),
  offset: z._default(
    coercedNumber({ message: 'Must be an integer' }).check(
      z.int('Must be an integer'),
      z.gte(0),
      z.lte(100_000),
    ),
    0,
  ),
});
export type SiteSearchInput = z.infer<typeof SiteSearchQuery>;

export const SlugPath = z.object({ slug: z.string().check(z.minLength(1), z.maxLength(200)) });
export const PropertyIdPath = z.object({ property_id: Uuid });

export const SitePlaceOut = z.object({
  code: z.string(),
  path: z.array(PathEntryOut).check(z.describe('Root first')),
  short: z.string(),
  long: z.string(),
});

/** An amenity as the site shows it: its code and its label in the Site Language. */
export const SiteAmenityOut = z.object({ code: z.string(), label: z.string() });

/** What the site shows of a listing's coordinate, by its location_precision. */
const PUBLISHED_COORDINATE = `exact: as kept (7 decimals); approximate: ${APPROXIMATE_LOCATION.description}; hidden: null`;

/**
 * A listing on the website: never the internal reference, the writing key, AI bookkeeping or
 * private fields. Its location follows one rule ({@link publicLocation}): exact as given; approximate
 * with coordinates rounded to about 1 km ({@link APPROXIMATE_LOCATION}) and no address; hidden with
 * neither.
 */
export const SiteListingOut = z.object({
  id: Uuid,
  slug: z.string(),
  ...listingTextFields,
  language: z.string(),
  ...listingFactFields,
  amenities: z.array(SiteAmenityOut),
  address: z
    .nullable(z.string())
    .check(
      z.describe(
        'The street address, only when location_precision is exact; null for approximate (the Place names the town) and hidden',
      ),
    ),
  latitude: z.nullable(z.number()).check(z.describe(PUBLISHED_COORDINATE)),
  longitude: z.nullable(z.number()).check(z.describe(PUBLISHED_COORDINATE)),
  location_precision: z.enum(LOCATION_PRECISIONS),
  ...listingMediaFields,
  images: z
    .array(ImageOut)
    .check(
      z.describe(
        'The gallery, ordered by sort_order; exactly one is_primary (the cover) when there are photos. Ready photos only: a photo whose renditions are still being made (status processing) is listed once they are',
      ),
    ),
  place: z.nullable(SitePlaceOut),
  agent: z.nullable(z.object({ slug: z.string(), name: z.string() })),
  created_at: z.string(),
  updated_at: z.string(),
});
export type SiteListingOutput = z.infer<typeof SiteListingOut>;

export const SiteListingPage = z.object({ items: z.array(SiteListingOut), total: z.number().check(z.int()) });
export const SiteListingList = SiteListingPage;

export const SiteListingBySlugOut = z.extend(SiteListingOut, {
  is_canonical: z.boolean().check(z.describe('false when the slug asked for is a retired one')),
  canonical_slug: z.string(),
});

/** The by-id read of a listing on the market: the listing, available. */
export const SiteListingAvailableOut = z.extend(SiteListingOut, { available: z.literal(true) });
/** The by-id read of a listing off the market: its id alone. */
export const SiteListingUnavailableOut = z.object({ id: Uuid, available: z.literal(false) });

export const SiteListingByIdOut = z.union([SiteListingAvailableOut, SiteListingUnavailableOut]);

/** Storage record → the site's listing, in `language`. */
export function toSiteListingOut(
  p: ListingRecord,
  language: string,
  agents: ReadonlyMap<string, Pick<AgentRecord, 'slug' | 'name'>> = new Map(),
): SiteListingOutput {
  const { untranslated: _shownAsIs, ...text } = toListingText(p, language);
  const precision = p.locationPrecision ?? 'exact';
  const agent = p.agentId ? agents.get(p.agentId) : undefined;
  return {
    id: p.id,
    slug: p.slug,
    ...text,
    ...toListingFacts(p),
    amenities: (p.amenities ?? [])
      .filter((c): c is AmenityCodeValue => (AMENITY_CODES as string[]).includes(c))
      .map((code) => toSiteAmenityOut(code, language)),
    ...publicLocation(p),
    location_precision: precision,
    ...toListingMedia(p),
    images: toSiteGalleryOut(p),
    place: toListingPlace(p),
    agent: agent ? { slug: agent.slug, name: agent.name } : null,
    created_at: p.createdAt,
    updated_at: p.updatedAt,
  };
}

export const SiteLocationOut = z.object({
  slug: z.string().check(z.describe('The value of `location` on GET /v1/site/properties')),
  kind: z.enum(['area', 'place', 'property_type']),
  name: z.string(),
  count: z
    .number()
    .check(z.int(), z.describe('Live listings in it (a Place: in it and in the Places under it)')),
  type: z.nullable(
    z
      .string()
      .check(
        z.describe(
          "An Area's kind (region, zone…) or a Place's (country, municipality…); null for a property type",
        ),
      ),
  ),
});
export const SiteLocationList = z.object({
  items: z.array(SiteLocationOut),
  total: z.number().check(z.int()),
});

export function toSiteLocationOut(l: SiteLocation): z.infer<typeof SiteLocationOut> {
  return { slug: l.slug, kind: l.kind, name: l.name, count: l.count, type: l.subkind ?? null };
}

export const SiteAgentOut = z.object({
  slug: z.string(),
  name: z.string(),
  email: z.string(),
  phone: z.nullable(z.string()),
  photo_url: z.nullable(z.string().check(z.describe('null: the Agent has no photo'))),
  listing_count: z.number().check(z.int(), z.describe("The Agent's live listings")),
});
export const SiteAgentList = z.object({ items: z.array(SiteAgentOut), total: z.number().check(z.int()) });

export function toSiteAgentOut(a: AgentRecord, listingCount: number): z.infer<typeof SiteAgentOut> {
  return {
    slug: a.slug,
    name: a.name,
    email: a.email,
    phone: a.phone ?? null,
    photo_url: null,
    listing_count: listingCount,
  };
}

export const SiteAmenityList = z.object({ items: z.array(SiteAmenityOut), total: z.number().check(z.int()) });

/** An amenity code → its {@link SiteAmenityOut}. */
function toSiteAmenityOut(code: AmenityCodeValue, language: string): z.infer<typeof SiteAmenityOut> {
  return { code, label: amenityLabel(code, language) };
}

export function amenityList(language: string) {
  const items = AMENITY_CODES.map((code) => toSiteAmenityOut(code, language));
  return { items, total: items.length };
}

/** POST /v1/site/leads. */
export const SiteLeadCreate = z.object({
  name: trimmedText(255),
  email: z.pipe(
    z.string().check(z.trim(), z.maxLength(320), z.email('Must be an email address')),
    z.transform((v) => v.toLowerCase()),
  ),
  message: trimmedText(5000),
  property_id: z.optional(z.nullable(Uuid)),
  agent_id: z.optional(z.nullable(Uuid)),
  turnstile: z.optional(
    z
      .string()
      .check(
        z.maxLength(2048),
        z.describe('The Cloudflare Turnstile token of the form (required: 403 without a valid one)'),
      ),
  ),
});
export type SiteLeadInput = z.infer<typeof SiteLeadCreate>;

export const SiteLeadOut = z.object({ id: Uuid.check(z.describe('The Inquiry')) });
