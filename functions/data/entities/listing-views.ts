import { Entity } from 'electrodb';
import { asIs, entityConfig, lazyEntity, SERVICE } from './common.ts';

/**
 * How many times a listing's detail page was viewed on the website. In the listing's partition
 * (sort key `views`, outside the `property…` range a listing read queries), a counter of its own so
 * a view never rewrites the listing (nor wakes the stream's listing processors). The item also holds
 * the current minute's visitor marks (`seen0`/`seen1`, written by data/listing-views.ts only), so
 * one conditional update both marks and counts a view.
 */
export const ListingViews = lazyEntity(
  () =>
    new Entity(
      {
        model: { service: SERVICE, entity: 'listingViews', version: '1' },
        attributes: {
          tenantId: { type: 'string', required: true, readOnly: true },
          propertyId: { type: 'string', required: true, readOnly: true },
          count: { type: 'number', required: true, default: 0 },
        },
        indexes: {
          byListing: {
            pk: {
              field: 'pk',
              composite: ['tenantId', 'propertyId'],
              template: 't#${tenantId}#property#${propertyId}',
              ...asIs,
            },
            sk: { field: 'sk', composite: [], template: 'views', ...asIs },
          },
        },
      },
      entityConfig(),
    ),
);
