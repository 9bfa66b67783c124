import { AMENITY_CODES, type AmenityCode, amenityLabel } from '../../../functions/domain/amenities.ts';
import {
  type EnrichmentOutput,
  type EnrichmentRequest,
  MAX_HIGHLIGHTS,
  SEO_DESCRIPTION_MAX,
  truncateText,
} from '../../../functions/domain/enrichment.ts';
import type { EnrichmentProvider } from '../../../functions/kernel/ports/ai.ts';

type Phrases = {
  bedrooms: (n: number) => string;
  bathrooms: (n: string) => string;
  area: (m2: string) => string;
  lot: (m2: string) => string;
  forSale: string;
  forRent: string;
  in: string;
  home: string;
};

/** Fixed phrases per language: facts can be stated in any of these without translating prose. */
const PHRASES: Record<string, Phrases> = {
  en: {
    bedrooms: (n) => `${n} bedroom${n === 1 ? '' : 's'}`,
    bathrooms: (n) => `${n} bathroom${n === '1' ? '' : 's'}`,
    area: (m) => `${m} m² built`,
    lot: (m) => `${m} m² plot`,
    forSale: 'for sale',
    forRent: 'for rent',
    in: 'in',
    home: 'Home',
  },
  es: {
    bedrooms: (n) => `${n} dormitorio${n === 1 ? '' : 's'}`,
    bathrooms: (n) => `${n} baño${n === '1' ? '' : 's'}`,
    area: (m) => `${m} m² construidos`,
    lot: (m) => `parcela de ${m} m²`,
    forSale: 'en venta',
    forRent: 'en alquiler',
    in: 'en',
    home: 'Vivienda',
  },
  de: {
    bedrooms: (n) => `${n} Schlafzimmer`,
    bathrooms: (n) => `${n} Bad${n === '1' ? '' : 'ezimmer'}`,
    area: (m) => `${m} m² Wohnfläche`,
    lot: (m) => `${m} m² Grundstück`,
    forSale: 'zu verkaufen',
    forRent: 'zu vermieten',
    in: 'in',
    home: 'Immobilie',
  },
  fr: {
    bedrooms: (n) => `${n} chambre${n === 1 ? '' : 's'}`,
    bathrooms: (n) => `${n} salle${n === '1' ? '' : 's'} de bain`,
    area: (m) => `${m} m² habitables`,
    lot: (m) => `terrain de ${m} m²`,
    forSale: 'à vendre',
    forRent: 'à louer',
    in: 'à',
    home: 'Bien',
  },
  nl: {
    bedrooms: (n) => `${n} slaapkamer${n === 1 ? '' : 's'}`,
    bathrooms: (n) => `${n} badkamer${n === '1' ? '' : 's'}`,
    area: (m) => `${m} m² woonoppervlak`,
    lot: (m) => `perceel van ${m} m²`,
    forSale: 'te koop',
    forRent: 'te huur',
    in: 'in',
    home: 'Woning',
  },
  pt: {
    bedrooms: (n) => `${n} quarto${n === 1 ? '' : 's'}`,
    bathrooms: (n) => `${n} casa${n === '1' ? '' : 's'} de banho`,
    area: (m) => `${m} m² de construção`,
    lot: (m) => `terreno de ${m} m²`,
    forSale: 'à venda',
    forRent: 'para arrendar',
    in: 'em',
    home: 'Imóvel',
  },
  it: {
    bedrooms: (n) => `${n} camer${n === 1 ? 'a' : 'e'} da letto`,
    bathrooms: (n) => `${n} bagn${n === '1' ? 'o' : 'i'}`,
    area: (m) => `${m} m² costruiti`,
    lot: (m) => `terreno di ${m} m²`,
    forSale: 'in vendita',
    forRent: 'in affitto',
    in: 'a',
    home: 'Immobile',
  },
  sv: {
    bedrooms: (n) => `${n} sovrum`,
    bathrooms: (n) => `${n} badrum`,
    area: (m) => `${m} m² boyta`,
    lot: (m) => `tomt på ${m} m²`,
    forSale: 'till salu',
    forRent: 'att hyra',
    in: 'i',
    home: 'Bostad',
  },
};

/**
 * The local stack's provider. It states the listing's facts (rooms, sizes, amenities, place) in
 * each language from fixed phrases, which is honest in any language it has phrases for. It cannot
 * translate free text, so it never returns a title or description translation (null), and for a
 * language it has no phrases for it returns nothing at all rather than English dressed up.
 */
export class LocalEnrichmentProvider implements EnrichmentProvider {
  readonly name = 'local';

  async enrich(request: EnrichmentRequest) {
    const languages: EnrichmentOutput['languages'] = {};
    for (const language of request.languages) {
      const phrases = PHRASES[language.split('-')[0] ?? ''];
      if (!phrases) continue;
      const f = request.facts;
      const amenities = f.amenities.filter((a): a is AmenityCode => (AMENITY_CODES as string[]).includes(a));
      const highlights = [
        ...(f.bedrooms !== null ? [phrases.bedrooms(f.bedrooms)] : []),
        ...(f.bathrooms !== null ? [phrases.bathrooms(f.bathrooms)] : []),
        ...(f.area !== null ? [phrases.area(f.area)] : []),
        ...(f.lotArea !== null ? [phrases.lot(f.lotArea)] : []),
        ...amenities.map((a) => amenityLabel(a, language)),
      ].slice(0, MAX_HIGHLIGHTS);
      const kind =
        f.listingType === 'rent' ? phrases.forRent : f.listingType === 'sale' ? phrases.forSale : '';
      const subject = [
        f.propertyType ? capitalise(f.propertyType) : phrases.home,
        kind,
        f.place ? `${phrases.in} ${f.place}` : '',
      ]
        .filter(Boolean)
        .join(' ');
      const seo = truncateText(
        `${subject}: ${highlights.join(', ')}.`.replace(/: \.$/, '.'),
        SEO_DESCRIPTION_MAX,
      );
      const isSource = language === request.sourceLanguage;
      languages[language] = {
        // The source language's own text stays the client's; other languages get no fake translation.
        title: null,
        description: null,
        highlights: isSource && request.clientWritten[language]?.highlights ? [] : highlights,
        seo_description: seo,
      };
    }
    const characters = JSON.stringify(request).length;
    return { output: { languages }, usage: { inputTokens: Math.ceil(characters / 4), outputTokens: 0 } };
  }
}

function capitalise(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
