import type { EntityItem } from 'electrodb';
import { Place } from './entities/place.ts';

export type PlaceRecord = EntityItem<typeof Place>;

/**
 * A Place by code. Consistent unless a caller opts out, like every by-key read: a listing may name a
 * Place ops saved a moment ago, and the write it gates must see it.
 */
export async function getPlace(
  code: string,
  options: { consistent?: boolean } = {},
): Promise<PlaceRecord | undefined> {
  const { data } = await Place.get({ code }).go({ consistent: options.consistent ?? true });
  return data ?? undefined;
}

/** One page of the catalogue in code order, after `afterCode` when given. */
export async function listPlaces(limit: number, afterCode?: string): Promise<PlaceRecord[]> {
  const query = afterCode ? Place.query.catalogue({}).gt({ code: afterCode }) : Place.query.catalogue({});
  const { data } = await query.go({ limit });
  return data;
}

/** Creates or replaces a Place (the catalogue is curated by ops through the admin CLI). */
export async function putPlace(place: PlaceRecord): Promise<PlaceRecord> {
  await Place.put(place).go();
  return place;
}
