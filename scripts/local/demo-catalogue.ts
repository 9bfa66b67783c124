/**
 * The demo tenant's sample catalogue: two dozen listings across the demo Places, for sale and to
 * rent, written in English, Spanish or German with the other Site Languages' text where an agency
 * would have it, amenities from the vocabulary, some featured, spread over three Agents. Texts are
 * composed from each listing's facts, so every language says the same thing.
 */

import { PropertyCreate } from '../../functions/contract/properties.ts';
import type { TenantRecord } from '../../functions/data/tenants.ts';
import { type AmenityCode, amenityLabel } from '../../functions/domain/amenities.ts';
import { createListing, editListing, type ListingWriter } from '../../functions/services/listings.ts';

export const DEMO_LANGUAGES = ['en', 'es', 'de'] as const;
type Language = (typeof DEMO_LANGUAGES)[number];

/** The demo's Agents besides the first (ana@demo.example): the agents page shows all three. */
export const DEMO_AGENTS = [
  { name: 'Lars Jensen', email: 'lars@demo.example', phone: '+34600100200' },
  { name: 'Sofia Costa', email: 'sofia@demo.example', phone: '+351912300400' },
] as const;
const AGENT_EMAILS = ['ana@demo.example', ...DEMO_AGENTS.map((a) => a.email)];

type PropertyType = 'villa' | 'apartment' | 'penthouse' | 'townhouse' | 'finca' | 'studio';

const TYPE_NAMES: Record<PropertyType, Record<Language, string>> = {
  villa: { en: 'villa', es: 'villa', de: 'Villa' },
  apartment: { en: 'apartment', es: 'apartamento', de: 'Wohnung' },
  penthouse: { en: 'penthouse', es: 'ático', de: 'Penthouse' },
  townhouse: { en: 'townhouse', es: 'casa adosada', de: 'Reihenhaus' },
  finca: { en: 'country house', es: 'finca', de: 'Landhaus' },
  studio: { en: 'studio', es: 'estudio', de: 'Studio' },
};

/** Spanish adjectives agree with the noun: la villa construida, el ático construido. */
const FEMININE_ES = new Set<PropertyType>(['villa', 'townhouse', 'finca']);

interface PlaceFacts {
  name: string;
  lat: number;
  lon: number;
  seaside: boolean;
}

const PLACES: Record<string, PlaceFacts> = {
  'ES-MA-MAR-PB': { name: 'Puerto Banús', lat: 36.4875, lon: -4.9526, seaside: true },
  'ES-MA-MAR-GM': { name: 'Golden Mile', lat: 36.5031, lon: -4.9189, seaside: true },
  'ES-MA-MAR': { name: 'Marbella', lat: 36.5101, lon: -4.8825, seaside: true },
  'ES-MA-EST': { name: 'Estepona', lat: 36.4276, lon: -5.1459, seaside: true },
  'ES-MA-BEN': { name: 'Benahavís', lat: 36.5228, lon: -5.0462, seaside: false },
  'ES-MA-MLG': { name: 'Málaga', lat: 36.7213, lon: -4.4214, seaside: true },
  'ES-MA-NER': { name: 'Nerja', lat: 36.7468, lon: -3.8745, seaside: true },
  'ES-CA-SOT': { name: 'Sotogrande', lat: 36.2886, lon: -5.2805, seaside: true },
  'ES-IB-PMI': { name: 'Palma', lat: 39.5696, lon: 2.6502, seaside: true },
  'PT-FAR-LAG': { name: 'Lagos', lat: 37.1028, lon: -8.6731, seaside: true },
  'PT-FAR-LOU': { name: 'Loulé', lat: 37.1377, lon: -8.0197, seaside: false },
  'PT-LIS-CAS': { name: 'Cascais', lat: 38.6979, lon: -9.4215, seaside: true },
};

/** One sample listing: its facts; the texts are composed from them. */
export interface SampleListing {
  ref: string;
  type: PropertyType;
  place: keyof typeof PLACES;
  listing: 'sale' | 'rent';
  /** Sale price, or monthly rent, in EUR. */
  amount: number;
  beds: number;
  baths: string;
  area: number;
  floors: number;
  amenities: AmenityCode[];
  featured?: boolean;
  /** The language the agency wrote it in; `also` the other languages it wrote it in. */
  written: Language;
  also: Language[];
  year: number;
}

// biome-ignore format: one listing per line reads as a table
export const SAMPLE_LISTINGS: SampleListing[] = [
  { ref: 'DEMO-001', type: 'villa', place: 'ES-MA-MAR-GM', listing: 'sale', amount: 4_450_000, beds: 6, baths: '5.5', area: 620, floors: 2, amenities: ['sea_view', 'private_pool', 'garden', 'home_cinema', 'gated_community'], featured: true, written: 'en', also: ['es', 'de'], year: 2019 },
  { ref: 'DEMO-002', type: 'apartment', place: 'ES-MA-MAR-PB', listing: 'sale', amount: 895_000, beds: 3, baths: '2', area: 145, floors: 5, amenities: ['sea_view', 'terrace', 'pool', 'elevator', 'air_conditioning'], featured: true, written: 'en', also: ['es'], year: 2008 },
  { ref: 'DEMO-003', type: 'penthouse', place: 'ES-MA-MAR-PB', listing: 'rent', amount: 6_500, beds: 3, baths: '3', area: 180, floors: 6, amenities: ['roof_terrace', 'sea_view', 'furnished', 'concierge'], written: 'en', also: ['es', 'de'], year: 2015 },
  { ref: 'DEMO-004', type: 'townhouse', place: 'ES-MA-MAR', listing: 'sale', amount: 575_000, beds: 3, baths: '2.5', area: 160, floors: 3, amenities: ['terrace', 'pool', 'garage', 'fitted_kitchen'], written: 'es', also: ['en'], year: 2004 },
  { ref: 'DEMO-005', type: 'studio', place: 'ES-MA-MAR', listing: 'rent', amount: 1_150, beds: 0, baths: '1', area: 42, floors: 4, amenities: ['furnished', 'air_conditioning', 'elevator'], written: 'es', also: ['en'], year: 1998 },
  { ref: 'DEMO-006', type: 'villa', place: 'ES-MA-BEN', listing: 'sale', amount: 2_350_000, beds: 5, baths: '5', area: 480, floors: 2, amenities: ['golf_view', 'private_pool', 'garden', 'gym', 'security_24h'], featured: true, written: 'en', also: ['es', 'de'], year: 2021 },
  { ref: 'DEMO-007', type: 'apartment', place: 'ES-MA-BEN', listing: 'rent', amount: 2_400, beds: 2, baths: '2', area: 110, floors: 3, amenities: ['golf_view', 'pool', 'terrace', 'furnished'], written: 'de', also: ['en'], year: 2017 },
  { ref: 'DEMO-008', type: 'villa', place: 'ES-MA-EST', listing: 'sale', amount: 1_290_000, beds: 4, baths: '4', area: 340, floors: 2, amenities: ['sea_view', 'private_pool', 'solar_panels', 'ev_charger'], written: 'en', also: ['es'], year: 2022 },
  { ref: 'DEMO-009', type: 'apartment', place: 'ES-MA-EST', listing: 'sale', amount: 329_000, beds: 2, baths: '2', area: 88, floors: 4, amenities: ['pool', 'terrace', 'storage_room'], written: 'es', also: ['en'], year: 2010 },
  { ref: 'DEMO-010', type: 'apartment', place: 'ES-MA-MLG', listing: 'rent', amount: 1_650, beds: 2, baths: '1', area: 76, floors: 5, amenities: ['balcony', 'air_conditioning', 'elevator', 'pets_allowed'], written: 'es', also: ['en'], year: 1975 },
  { ref: 'DEMO-011', type: 'penthouse', place: 'ES-MA-MLG', listing: 'sale', amount: 745_000, beds: 3, baths: '2', area: 132, floors: 8, amenities: ['roof_terrace', 'sea_view', 'elevator', 'private_parking'], featured: true, written: 'en', also: ['es'], year: 2012 },
  { ref: 'DEMO-012', type: 'townhouse', place: 'ES-MA-NER', listing: 'sale', amount: 398_000, beds: 3, baths: '2', area: 124, floors: 2, amenities: ['sea_view', 'terrace', 'fireplace'], written: 'en', also: ['es', 'de'], year: 1996 },
  { ref: 'DEMO-013', type: 'apartment', place: 'ES-MA-NER', listing: 'rent', amount: 1_200, beds: 1, baths: '1', area: 55, floors: 2, amenities: ['sea_view', 'balcony', 'furnished'], written: 'de', also: ['en', 'es'], year: 1988 },
  { ref: 'DEMO-014', type: 'villa', place: 'ES-CA-SOT', listing: 'sale', amount: 3_100_000, beds: 5, baths: '4.5', area: 560, floors: 2, amenities: ['golf_front', 'private_pool', 'tennis_court', 'wine_cellar', 'garden'], featured: true, written: 'en', also: ['es'], year: 2006 },
  { ref: 'DEMO-015', type: 'apartment', place: 'ES-CA-SOT', listing: 'rent', amount: 3_200, beds: 3, baths: '2', area: 150, floors: 3, amenities: ['sea_view', 'pool', 'padel_court', 'furnished'], written: 'en', also: [], year: 2018 },
  { ref: 'DEMO-016', type: 'finca', place: 'ES-IB-PMI', listing: 'sale', amount: 1_850_000, beds: 4, baths: '3', area: 390, floors: 2, amenities: ['mountain_view', 'private_pool', 'garden', 'guest_apartment'], written: 'de', also: ['en', 'es'], year: 1920 },
  { ref: 'DEMO-017', type: 'apartment', place: 'ES-IB-PMI', listing: 'rent', amount: 2_100, beds: 2, baths: '2', area: 95, floors: 4, amenities: ['balcony', 'air_conditioning', 'elevator', 'furnished'], written: 'de', also: ['en'], year: 2001 },
  { ref: 'DEMO-018', type: 'villa', place: 'PT-FAR-LAG', listing: 'sale', amount: 1_150_000, beds: 4, baths: '3', area: 280, floors: 2, amenities: ['sea_view', 'private_pool', 'garden', 'solar_panels'], featured: true, written: 'en', also: ['de'], year: 2016 },
  { ref: 'DEMO-019', type: 'townhouse', place: 'PT-FAR-LAG', listing: 'rent', amount: 1_900, beds: 3, baths: '2', area: 130, floors: 2, amenities: ['terrace', 'pool', 'pets_allowed'], written: 'en', also: [], year: 2009 },
  { ref: 'DEMO-020', type: 'finca', place: 'PT-FAR-LOU', listing: 'sale', amount: 695_000, beds: 3, baths: '2', area: 210, floors: 1, amenities: ['mountain_view', 'pool', 'garden', 'fireplace'], written: 'en', also: ['es'], year: 1965 },
  { ref: 'DEMO-021', type: 'villa', place: 'PT-FAR-LOU', listing: 'rent', amount: 4_800, beds: 4, baths: '4', area: 300, floors: 2, amenities: ['golf_view', 'private_pool', 'furnished', 'alarm'], written: 'en', also: ['de'], year: 2014 },
  { ref: 'DEMO-022', type: 'apartment', place: 'PT-LIS-CAS', listing: 'sale', amount: 615_000, beds: 2, baths: '2', area: 102, floors: 4, amenities: ['sea_view', 'balcony', 'elevator', 'private_parking'], written: 'en', also: ['es'], year: 2019 },
  { ref: 'DEMO-023', type: 'penthouse', place: 'PT-LIS-CAS', listing: 'rent', amount: 5_200, beds: 3, baths: '3', area: 170, floors: 7, amenities: ['roof_terrace', 'sea_view', 'furnished', 'gym'], written: 'en', also: ['es', 'de'], year: 2020 },
  { ref: 'DEMO-024', type: 'studio', place: 'ES-MA-MLG', listing: 'sale', amount: 189_000, beds: 0, baths: '1', area: 38, floors: 3, amenities: ['balcony', 'air_conditioning', 'fitted_kitchen'], written: 'es', also: ['en'], year: 1982 },
];

const lower = (text: string, language: Language) => (language === 'de' ? text : text.toLowerCase());

function listFormat(items: string[], language: Language): string {
  return new Intl.ListFormat(language, { type: 'conjunction' }).format(items);
}

/** The listing's title and description in `language`, from its facts. */
export function sampleText(
  sample: SampleListing,
  language: Language,
): { title: string; description: string } {
  const place = PLACES[sample.place] as PlaceFacts;
  const type = TYPE_NAMES[sample.type][language];
  const hook = lower(amenityLabel(sample.amenities[0] as AmenityCode, language), language);
  const features = listFormat(
    sample.amenities.map((a) => lower(amenityLabel(a, language), language)),
    language,
  );
  const beds = sample.beds;
  const money = new Intl.NumberFormat(language, {
    style: 'currency',
    currency: 'EUR',
    maximumFractionDigits: 0,
  }).format(sample.amount);
  switch (language) {
    case 'en': {
      const rooms = beds ? `${beds}-bedroom ${type}` : type[0]?.toUpperCase() + type.slice(1);
      return {
        title: `${rooms[0]?.toUpperCase()}${rooms.slice(1)} with ${hook} in ${place.name}`,
        description:
          `A ${beds ? `${beds}-bedroom ` : ''}${type} of ${sample.area} m² in ${place.name}, built in ${sample.year}, ` +
          `with ${features}. ` +
          (sample.listing === 'rent'
            ? `Available to rent at ${money} a month.`
            : `Offered for sale at ${money}.`),
      };
    }
    case 'es': {
      const rooms = beds ? `${type} de ${beds} dormitorio${beds > 1 ? 's' : ''}` : type;
      return {
        title: `${rooms[0]?.toUpperCase()}${rooms.slice(1)} con ${hook} en ${place.name}`,
        description:
          `${type[0]?.toUpperCase()}${type.slice(1)} de ${sample.area} m² en ${place.name}, ` +
          `${FEMININE_ES.has(sample.type) ? 'construida' : 'construido'} en ${sample.year}, ` +
          `con ${features}. ` +
          (sample.listing === 'rent' ? `En alquiler por ${money} al mes.` : `En venta por ${money}.`),
      };
    }
    case 'de': {
      const rooms = beds ? `${type} mit ${beds} Schlafzimmer${beds > 1 ? 'n' : ''}` : type;
      return {
        title: `${rooms}, ${hook}, ${place.name}`,
        description:
          `${type} mit ${sample.area} m² in ${place.name}, Baujahr ${sample.year}, mit ${features}. ` +
          (sample.listing === 'rent' ? `Zu vermieten für ${money} im Monat.` : `Zu verkaufen für ${money}.`),
      };
    }
  }
}

/** The create body of a sample (validated by the API's own schema, as an import item is). */
export function sampleBody(sample: SampleListing, index: number) {
  const place = PLACES[sample.place] as PlaceFacts;
  const text = sampleText(sample, sample.written);
  // Spread the pins around the Place's centre, a few hundred metres apart.
  const jitter = (n: number) => Math.round(Math.sin(index * 12.9898 + n) * 0.01 * 1e5) / 1e5;
  return PropertyCreate.parse({
    ...text,
    internal_ref: sample.ref,
    listing_type: sample.listing,
    ...(sample.listing === 'sale' ? { price: String(sample.amount) } : { rent_price: String(sample.amount) }),
    currency: 'EUR',
    property_type: sample.type,
    bedrooms: sample.beds,
    bathrooms: sample.baths,
    area: String(sample.area),
    year_built: sample.year,
    amenities: sample.amenities,
    place_code: sample.place,
    latitude: place.lat + jitter(1),
    longitude: place.lon + jitter(2),
    location_precision: index % 4 === 3 ? 'approximate' : 'exact',
    is_featured: sample.featured ?? false,
    agent_email: AGENT_EMAILS[index % AGENT_EMAILS.length],
  });
}

/** Whether the sample's photos show the sea (for the photo generator). */
export function sampleSeaside(sample: SampleListing): boolean {
  return (PLACES[sample.place] as PlaceFacts).seaside;
}

/**
 * Writes the catalogue for `tenant` (whose Agents include AGENT_EMAILS): each listing in the
 * language it was written in, then the agency's own text in its other languages. Returns the ids.
 */
export async function seedCatalogue(tenant: TenantRecord): Promise<{ id: string; sample: SampleListing }[]> {
  const writer: ListingWriter = { tenant, name: 'demo catalogue', via: 'import' };
  const written: { id: string; sample: SampleListing }[] = [];
  for (const [index, sample] of SAMPLE_LISTINGS.entries()) {
    const { record } = await createListing(writer, sampleBody(sample, index), sample.written);
    for (const language of sample.also) {
      await editListing(writer, record.id, sampleText(sample, language), language);
    }
    written.push({ id: record.id, sample });
  }
  return written;
}
