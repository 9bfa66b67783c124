import * as z from 'zod';
import { listPlaces } from '../../data/places.ts';
import { defineOperation } from '../../platform/operation.ts';
import { pageOf } from '../shared/schemas.ts';
import { PlaceOut, toPlaceOut } from './schemas.ts';

const PlaceListQuery = z.object({
  limit: z.coerce.number({ message: 'Must be an integer' }).int().min(1).max(1000).default(1000),
  cursor: z.string().min(1).max(64).optional(),
});

export const operation = defineOperation(
  'listPlaces',
  {
    query: PlaceListQuery,
    responses: {
      200: {
        description: 'The Place catalogue in code order; `next_cursor` is the code to continue after',
        schema: pageOf(PlaceOut),
      },
    },
  },
  async ({ query }) => {
    const places = await listPlaces(query.limit + 1, query.cursor);
    const page = places.slice(0, query.limit);
    return {
      status: 200,
      body: {
        data: page.map(toPlaceOut),
        next_cursor: places.length > query.limit ? (page.at(-1)?.code ?? null) : null,
      },
    };
  },
);

export const handler = operation.handler;
