import * as z from 'zod/mini';
import type { PlaceRecord } from '../data/places.ts';

export const PathEntryOut = z.object({ code: z.string(), name: z.string(), kind: z.string() });

export const PlaceOut = z.object({
  code: z.string(),
  name: z.string(),
  kind: z.string(),
  parent_code: z.nullable(z.string()),
  path: z.array(PathEntryOut).check(z.describe('Ancestors then the Place itself, root first')),
  short: z.string().check(z.describe('Card label: the Place and its parent')),
  long: z.string().check(z.describe('Detail label: the whole path, most specific first')),
});

/** "Marbella, Málaga" for cards; "Marbella, Málaga, Andalusia, Spain" for the detail page. */
export function placeLabels(path: { name: string }[]): { short: string; long: string } {
  const names = path.map((p) => p.name).reverse();
  return { short: names.slice(0, 2).join(', '), long: names.join(', ') };
}

export function toPlaceOut(p: PlaceRecord): z.infer<typeof PlaceOut> {
  return {
    code: p.code,
    name: p.name,
    kind: p.kind,
    parent_code: p.parentCode ?? null,
    path: p.path,
    ...placeLabels(p.path),
  };
}
