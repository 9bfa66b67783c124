/**
 * The owner rule (docs/leads-core.md): who becomes the Owner of a Lead that has none. No I/O here:
 * the service looks the Agents up and takes the round-robin turn, these functions decide.
 */

/** An Agent as the rule sees it. */
export interface OwnerCandidate {
  id: string;
  isActive: boolean;
}

/** Who becomes the Owner of a Lead that has none. */
export type OwnerChoice =
  /** Named by the client (manual create): an Agent id, or null to stay Unassigned. */
  | { kind: 'agent'; agentId: string | null }
  /** The owner rule: the listing's Agent, else the named Agent, else round-robin. */
  | { kind: 'rule'; listingAgentId?: string | undefined; namedAgent?: OwnerCandidate | undefined };

export interface PickedOwner {
  agentId: string | undefined;
  /** True when the service chose the Owner (the rule), not the client. */
  picked: boolean;
}

/**
 * The rule's first steps: the listing's Agent when active, else the named Agent when active.
 * Undefined: neither qualifies, so the turn goes round-robin.
 */
export function ownerBeforeRoundRobin(
  listingAgent: OwnerCandidate | undefined,
  namedAgent: OwnerCandidate | undefined,
): string | undefined {
  if (listingAgent?.isActive) return listingAgent.id;
  if (namedAgent?.isActive) return namedAgent.id;
  return undefined;
}

/**
 * Round-robin: the `turn`-th (from 1) of the active Agents ordered by id, wrapping around. The turn
 * comes from an atomic counter, so concurrent assignments spread evenly. None: Unassigned.
 */
export function roundRobinOwner(activeAgentIds: readonly string[], turn: number): string | undefined {
  if (activeAgentIds.length === 0) return undefined;
  const ordered = [...activeAgentIds].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  return ordered[(turn - 1) % ordered.length];
}
