import { getPlace, type PlaceRecord, putPlace } from '../data/places.ts';
import { AdminInputError } from './tenants.ts';

export interface PlaceInput {
  code: string;
  name: string;
  parent?: string | undefined;
  kind?: string | undefined;
}

const CODE = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,31}$/;

/**
 * Adds or replaces a Place. Its path is its parent's path plus itself, so the parent must exist
 * first (an import sorts parents before children).
 */
export async function savePlace(
  input: PlaceInput,
  parents = new Map<string, PlaceRecord>(),
): Promise<PlaceRecord> {
  if (!CODE.test(input.code))
    throw new AdminInputError(`Place code "${input.code}" must be 1–32 letters, digits, ".", "_" or "-"`);
  if (!input.name?.trim()) throw new AdminInputError(`Place ${input.code}: name must not be empty`);
  let parent: PlaceRecord | undefined;
  if (input.parent) {
    parent = parents.get(input.parent) ?? (await getPlace(input.parent, { consistent: true }));
    if (!parent) throw new AdminInputError(`Place ${input.code}: unknown parent "${input.parent}"`);
    if (parent.path.some((p) => p.code === input.code))
      throw new AdminInputError(`Place ${input.code}: a Place cannot be its own ancestor`);
  }
  const kind = input.kind?.trim() || (parent ? 'area' : 'country');
  const now = new Date().toISOString();
  const existing = await getPlace(input.code, { consistent: true });
  const record: PlaceRecord = {
    code: input.code,
    name: input.name.trim(),
    kind,
    ...(parent ? { parentCode: parent.code } : {}),
    path: [...(parent?.path ?? []), { code: input.code, name: input.name.trim(), kind }],
    createdAt: existing?.createdAt ?? now,
    updatedAt: now,
  };
  await putPlace(record);
  parents.set(record.code, record);
  return record;
}

/** Parents before children, so that each Place can find its parent's path. */
export function orderByDepth(places: PlaceInput[]): PlaceInput[] {
  const byCode = new Map(places.map((p) => [p.code, p]));
  const depth = (p: PlaceInput, seen = new Set<string>()): number => {
    if (!p.parent || !byCode.has(p.parent) || seen.has(p.code)) return 0;
    seen.add(p.code);
    return 1 + depth(byCode.get(p.parent) as PlaceInput, seen);
  };
  return [...places].sort((a, b) => depth(a) - depth(b));
}
