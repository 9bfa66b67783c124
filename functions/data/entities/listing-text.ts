import { Entity, type EntityItem } from 'electrodb';
import { asIs, entityConfig, lazyEntity, SERVICE } from './common.ts';

/**
 * One Site Language's text of a listing kept beside it instead of on it (data/listings.ts
 * `layoutTexts`): in the listing's own partition (sort key `property#text#<language>`), so that the
 * Query that reads a listing with its Areas reads its texts too. Only a listing whose translations
 * outgrow the listing item's budget has any; the listing item names them (`textsApart`).
 */
export const ListingText = lazyEntity(
  () =>
    new Entity(
      {
        model: { service: SERVICE, entity: 'propertyText', version: '1' },
        attributes: {
          tenantId: { type: 'string', required: true, readOnly: true },
          propertyId: { type: 'string', required: true, readOnly: true },
          language: { type: 'string', required: true, readOnly: true },
          /** domain/listing-text.ts `LanguageText`. */
          text: { type: 'any', required: true },
        },
        indexes: {
          byLanguage: {
            pk: {
              field: 'pk',
              composite: ['tenantId', 'propertyId'],
              template: 't#${tenantId}#property#${propertyId}',
              ...asIs,
            },
            sk: { field: 'sk', composite: ['language'], template: 'property#text#${language}', ...asIs },
          },
        },
      },
      entityConfig(),
    ),
);

export type ListingTextItem = EntityItem<typeof ListingText>;
