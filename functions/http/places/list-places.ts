import * as z from 'zod/mini';
import { PlaceOut, toPlaceOut } from '../../contract/places.ts';
import { pageOf } from '../../contract/shared.ts';
import { listPlaces } from '../../data/places.ts';
import { coercedNumber } from '../../kernel/zod.ts';
import { defineOperation } from '../../pipeline/operation.ts';

const PlaceListQuery = z.object({
  limit: z._default(
    coercedNumber({ message: 'Must be an integer' }).check(z.int(), z.gte(1), z.lte(1000)),
    1000,
  ),
  cursor: z.optional(z.string().check(z.minLength(1), z.maxLength(64))),
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
