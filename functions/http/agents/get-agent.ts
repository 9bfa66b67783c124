import { AgentOut, AgentPath, toAgentOut } from '../../contract/agents.ts';
import { ErrorOut, ValidationErrorOut } from '../../contract/shared.ts';
import { defineOperation } from '../../pipeline/operation.ts';
import { readAgent } from '../../services/agents.ts';

export const operation = defineOperation(
  'getAgent',
  {
    params: AgentPath,
    responses: {
      200: { description: 'The Agent', schema: AgentOut },
      404: { description: 'No Agent with this id in this tenant', schema: ErrorOut },
      422: { description: 'agent_id is not a UUID', schema: ValidationErrorOut },
    },
  },
  async ({ params, caller }) => ({
    status: 200,
    body: toAgentOut(await readAgent(caller.tenant.tenantId, params.agent_id)),
  }),
);

export const handler = operation.handler;
