/** Scopes a secret API key can hold (docs/getting-started.md, Keys and scopes). */
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

/**
 * The one grant a scope carries beyond itself: `properties:write` also reads listings, as the API
 * documents; `leads:write` and `activities:write` grant writes alone, so that a key handed to a lead
 * source for ingestion cannot read the CRM back (a key needing both holds both scopes).
 */
const IMPLIED: Partial<Record<Scope, Scope[]>> = {
  'properties:write': ['properties:read'],
};

export function grants(held: readonly string[], needed: Scope): boolean {
  return held.some((s) => s === needed || (isScope(s) && (IMPLIED[s] ?? []).includes(needed)));
}

/**
 * What a route asks of a key: one scope, or a list of which any one will do (`GET /v1/agents`
 * serves both the listings side, properties:read, and the CRM side, leads:read).
 */
export type ScopeRequirement = Scope | readonly [Scope, Scope, ...Scope[]];

/** The scopes of a requirement, any one of which lets a key in. */
export function scopesOf(requirement: ScopeRequirement): readonly Scope[] {
  return typeof requirement === 'string' ? [requirement] : requirement;
}

/** True when the held scopes grant the requirement (one of its scopes, directly or implied). */
export function satisfies(held: readonly string[], requirement: ScopeRequirement): boolean {
  return scopesOf(requirement).some((needed) => grants(held, needed));
}

/** The requirement in words: `leads:read`, or `properties:read or leads:read`. */
export function describeRequirement(requirement: ScopeRequirement): string {
  return scopesOf(requirement).join(' or ');
}
