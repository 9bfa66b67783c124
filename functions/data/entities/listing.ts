import { Entity, type EntityItem } from 'electrodb';
import { entityConfig, lazyEntity, ownPartition, SERVICE, timestamps, updatedOrderByList } from './common.ts';

/**
 * The list a listing is filed under in gsi1: live and draft listings under `properties` (the key
 * every listing had before archived ones moved out), archived ones under `archived-properties`, so
 * a list of unarchived listings never reads an archived one (as Leads do, entities/lead.ts).
 */
export const LISTING_LISTS = ['properties', 'archived-properties'] as const;
export type ListingList = (typeof LISTING_LISTS)[number];

/** The list a listing belongs in: archived or not. */
export function listingListOf(listing: { archivedAt?: string | undefined }): ListingList {
  return listing.archivedAt ? 'archived-properties' : 'properties';
}

/**
 * A listing. Decimals (prices, bathrooms) are kept as normalised decimal strings so that no value
 * ever passes through a binary float. `status` is derived (see domain/listing.ts) from
 * `archivedAt` and `placeCode`, so it cannot disagree with them. The stored entity name stays
 * `property` (every item written carries it; the public paths say properties too).
 */
export const Listing = lazyEntity(
  () =>
    new Entity(
      {
        model: { service: SERVICE, entity: 'property', version: '1' },
        attributes: {
          tenantId: { type: 'string', required: true, readOnly: true },
          id: { type: 'string', required: true, readOnly: true },
          title: { type: 'string', required: true },
          description: { type: 'string' },
          listingType: { type: ['sale', 'rent'] as const },
          price: { type: 'string' },
          currency: { type: 'string' },
          rentPrice: { type: 'string' },
          propertyType: { type: 'string' },
          bedrooms: { type: 'number' },
          bathrooms: { type: 'string' },
          area: { type: 'string' },
          lotArea: { type: 'string' },
          parkingSpaces: { type: 'number' },
          yearBuilt: { type: 'number' },
          floor: { type: 'number' },
          hoaFee: { type: 'string' },
          amenities: { type: 'list', items: { type: 'string' } },
          address: { type: 'string' },
          latitude: { type: 'number' },
          longitude: { type: 'number' },
          locationPrecision: { type: ['exact', 'approximate', 'hidden'] as const },
          isFeatured: { type: 'boolean' },
          videoUrl: { type: 'string' },
          tourUrl: { type: 'string' },
          agentId: { type: 'string' },
          /** The language of the listing's own text (`title`, `description`). */
          sourceLanguage: { type: 'string', required: true, default: 'en' },
          /**
           * Text per Site Language (domain/listing-text.ts `ListingTexts`): translations, highlights,
           * SEO descriptions, and which fields a client wrote (AI leaves those alone).
           */
          texts: { type: 'any' },
          /**
           * The languages whose text is kept in its own item beside the listing (entities/listing-text.ts),
           * not in `texts`: set only once the translations outgrow the item's budget (data/listings.ts
           * `layoutTexts`). Readers of data/listings.ts see `texts` whole either way.
           */
          textsApart: { type: 'list', items: { type: 'string' } },
          /** false: writes never queue AI enrichment for this listing. */
          aiEnrichment: { type: 'boolean', required: true, default: true },
          enrichmentStatus: { type: ['pending', 'enriched', 'failed', 'off', 'paused'] as const },
          /** Identifies the latest enrichment request; a worker holding an older one stands down. */
          enrichmentRequestId: { type: 'string' },
          enrichmentAttempts: { type: 'number' },
          enrichmentError: { type: 'string' },
          enrichedAt: { type: 'string' },
          /**
           * The last price changes (at most data/listings.ts `PRICE_HISTORY_KEPT`):
           * `{price, rent_price, currency, changed_at, changed_by}`, oldest first.
           */
          priceHistory: { type: 'any' },
          /** Fields a key edited on an imported listing: a later import leaves them alone. */
          manualFields: { type: 'list', items: { type: 'string' } },
          placeCode: { type: 'string' },
          /** The Place's path (root first), copied at write time so a read needs no Place lookup. */
          placePath: {
            type: 'list',
            items: {
              type: 'map',
              properties: {
                code: { type: 'string', required: true },
                name: { type: 'string', required: true },
                kind: { type: 'string', required: true },
              },
            },
          },
          internalRef: { type: 'string' },
          /**
           * A copy of the listing's Area memberships (entities/area-membership.ts, the truth and the
           * Area index), rewritten by data/areas.ts after each membership change, so that a page of
           * listings presents each with its Areas without a read per listing. A listing stored before
           * the copy existed has none: a list reads its memberships (`listing migrate` writes it).
           */
          areaMemberships: {
            type: 'list',
            items: {
              type: 'map',
              properties: {
                areaId: { type: 'string', required: true },
                areaKind: { type: ['region', 'zone', 'neighborhood', 'community'] as const, required: true },
                areaName: { type: 'string', required: true },
                via: { type: ['rule', 'manual', 'excluded'] as const, required: true },
                updatedAt: { type: 'string', required: true },
              },
            },
          },
          /** Bumped by each rewrite of `areaMemberships`: a rewrite from an older read is refused. */
          areaMembershipsVersion: { type: 'number' },
          /**
           * The gallery (domain/images.ts `GalleryImage`), at most 100, kept on the listing so that a
           * read needs no other item and a gallery change is a listing change (property.updated).
           * Written only by services/listing-images.ts, from the domain's validated `GalleryImage`s.
           */
          images: { type: 'any' },
          slug: { type: 'string', required: true },
          origin: { type: ['api', 'import', 'console'] as const, required: true, readOnly: true },
          archivedAt: { type: 'string' },
          /** gsi1's list: `properties`, or `archived-properties` once archived (`listingListOf`). */
          listKey: { type: LISTING_LISTS, default: 'properties' },
          /** Name of the API key (or admin) that created / last wrote the listing. */
          createdBy: { type: 'string', required: true, readOnly: true },
          updatedBy: { type: 'string', required: true },
          ...timestamps,
        },
        indexes: {
          byId: ownPartition('property'),
          byUpdated: updatedOrderByList(),
        },
      },
      entityConfig(),
    ),
);

export type ListingItem = EntityItem<typeof Listing>;
