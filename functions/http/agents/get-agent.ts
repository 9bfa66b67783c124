import { defineOperation } from '../../platform/operation.ts';
import { readAgent } from '../../services/agents.ts';
import { ErrorOut, ValidationErrorOut } from '../shared/schemas.ts';
import { AgentOut, AgentPath, toAgentOut } from './schemas.ts';

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
