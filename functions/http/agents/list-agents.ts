import { AgentOut, toAgentOut } from '../../contract/agents.ts';
import { PageQuery, pageOf, ValidationErrorOut } from '../../contract/shared.ts';
import { defineOperation } from '../../pipeline/operation.ts';
import { listAgents } from '../../services/agents.ts';

export const operation = defineOperation(
  'listAgents',
  {
    query: PageQuery,
    responses: {
      200: { description: 'A page of Agents, least recently updated first', schema: pageOf(AgentOut) },
      422: { description: 'Invalid limit, cursor or updated_since', schema: ValidationErrorOut },
    },
  },
  async ({ query, caller }) => ({
    status: 200,
    body: await listAgents(caller.tenant.tenantId, query, toAgentOut),
  }),
);

export const handler = operation.handler;
