/**
 * Area membership rules: the kinds of Area (a community has manual membership only) and how a
 * listing is in one (AreaVia: by the Area's rule, added by hand, or excluded by hand, which a
 * recompute respects).
 */
export const AREA_KINDS = ['region', 'zone', 'neighborhood', 'community'] as const;
export type AreaKind = (typeof AREA_KINDS)[number];
export type AreaVia = 'rule' | 'manual' | 'excluded';

export interface AreaRule {
  id: string;
  kind: AreaKind;
  placeCodes: string[];
}

/** Is a listing whose Place has this path (codes, root first) covered by the Area's rule? */
export function ruleCovers(area: AreaRule, placePath: string[]): boolean {
  if (area.kind === 'community') return false;
  return area.placeCodes.some((code) => placePath.includes(code));
}

export interface MembershipPlan {
  add: string[];
  remove: string[];
}

/**
 * What a recompute changes for one listing: rule memberships follow the rules; manual and excluded
 * memberships are a person's decision and are never touched.
 */
export function planMemberships(
  areas: AreaRule[],
  placePath: string[],
  current: Map<string, AreaVia>,
): MembershipPlan {
  const add: string[] = [];
  const remove: string[] = [];
  for (const area of areas) {
    const via = current.get(area.id);
    const covered = ruleCovers(area, placePath);
    if (via === undefined && covered) add.push(area.id);
    if (via === 'rule' && !covered) remove.push(area.id);
  }
  // A rule membership whose Area no longer exists is stale too.
  for (const [areaId, via] of current) {
    if (via === 'rule' && !areas.some((a) => a.id === areaId)) remove.push(areaId);
  }
  return { add, remove };
}
