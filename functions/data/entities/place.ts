import { Entity } from 'electrodb';
import { asIs, entityConfig, lazyEntity, SERVICE, timestamps } from './common.ts';

/**
 * A node of the platform-wide Place catalogue (country > region > municipality > ...). The
 * catalogue is shared by every Tenant; a listing's place_code must name one of these.
 */
export const Place = lazyEntity(
  () =>
    new Entity(
      {
        model: { service: SERVICE, entity: 'place', version: '1' },
        attributes: {
          code: { type: 'string', required: true, readOnly: true },
          name: { type: 'string', required: true },
          kind: { type: 'string', required: true },
          parentCode: { type: 'string' },
          /** Ancestors then the Place itself, root first; denormalised so one read labels a listing. */
          path: {
            type: 'list',
            required: true,
            items: {
              type: 'map',
              properties: {
                code: { type: 'string', required: true },
                name: { type: 'string', required: true },
                kind: { type: 'string', required: true },
              },
            },
          },
          ...timestamps,
        },
        indexes: {
          byCode: {
            pk: { field: 'pk', composite: ['code'], template: 'global#place#${code}', ...asIs },
            sk: { field: 'sk', composite: [], template: 'place', ...asIs },
          },
          catalogue: {
            index: 'gsi1',
            pk: { field: 'gsi1pk', composite: [], template: 'global#places', ...asIs },
            sk: { field: 'gsi1sk', composite: ['code'], template: '${code}', ...asIs },
          },
        },
      },
      entityConfig(),
    ),
);
