/** Scopes a secret API key can hold (interface §5). */
export const SCOPES = [
  'properties:read',
  'properties:write',
  'leads:read',
  'leads:write',
  'activities:read',
  'activities:write',
  'webhooks:manage',
] as const;

export type Scope = (typeof SCOPES)[number];

export function isScope(value: string): value is Scope {
  return (SCOPES as readonly string[]).includes(value);
}

/** A write scope also grants the matching reads ("properties:write … also reads them"). */
const IMPLIED: Partial<Record<Scope, Scope[]>> = {
  'properties:write': ['properties:read'],
  'leads:write': ['leads:read'],
  'activities:write': ['activities:read'],
};

export function grants(held: readonly string[], needed: Scope): boolean {
  return held.some((s) => s === needed || (isScope(s) && (IMPLIED[s] ?? []).includes(needed)));
}
