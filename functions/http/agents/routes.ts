import type { RouteDefinition } from '../../pipeline/route.ts';

/**
 * Rows of the route table (functions/routes.ts) for this resource. Agents are what listings
 * (`agent_id`) and Leads (`assigned_agent_id`) point at, so either side's read scope lets a key
 * learn them.
 */
export const agentRoutes = [
  {
    operationId: 'listAgents',
    method: 'GET',
    path: '/v1/agents',
    scope: ['properties:read', 'leads:read'],
    entry: 'agents/list-agents.ts',
    summary: "List the Tenant's Agents (the agent_id values listings and Leads accept)",
    tag: 'Agents',
  },
  {
    operationId: 'getAgent',
    method: 'GET',
    path: '/v1/agents/{agent_id}',
    scope: ['properties:read', 'leads:read'],
    entry: 'agents/get-agent.ts',
    summary: 'Read one Agent',
    tag: 'Agents',
  },
] as const satisfies readonly RouteDefinition[];
