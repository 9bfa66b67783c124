import { getAgent, listActiveAgents } from '../../data/agents.ts';
import { takeAssignmentTurn } from '../../data/leads.ts';
import {
  type OwnerChoice,
  ownerBeforeRoundRobin,
  type PickedOwner,
  roundRobinOwner,
} from '../../domain/owner-rule.ts';

/**
 * Resolves the owner rule (domain/owner-rule.ts) against the Tenant's Agents: the named listing's
 * Agent when active, else the named Agent when active, else round-robin over the active Agents, the
 * turn taken with an atomic counter only when it comes to that. No active Agent: Unassigned.
 */
export async function pickOwner(tenantId: string, choice: OwnerChoice): Promise<PickedOwner> {
  if (choice.kind === 'agent') return { agentId: choice.agentId ?? undefined, picked: false };
  const listingAgent = choice.listingAgentId ? await getAgent(tenantId, choice.listingAgentId) : undefined;
  const first = ownerBeforeRoundRobin(listingAgent, choice.namedAgent);
  if (first) return { agentId: first, picked: true };
  const agents = await listActiveAgents(tenantId);
  if (agents.length === 0) return { agentId: undefined, picked: false };
  const turn = await takeAssignmentTurn(tenantId);
  return {
    agentId: roundRobinOwner(
      agents.map((a) => a.id),
      turn,
    ),
    picked: true,
  };
}
