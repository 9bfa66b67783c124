import * as z from 'zod/mini';
import type { AgentRecord } from '../data/agents.ts';
import { Uuid } from './shared.ts';

export const AgentPath = z.object({ agent_id: Uuid });

export const AgentOut = z.object({
  id: Uuid,
  slug: z.string().check(z.describe("The Agent's profile slug on the Tenant's website")),
  name: z.string(),
  email: z.string().check(z.describe('Lowercased; what agent_email names')),
  phone: z.nullable(z.string()),
  is_admin: z.boolean().check(z.describe('A Tenant Admin')),
  created_at: z.string(),
  updated_at: z.string(),
});
export type AgentOutput = z.infer<typeof AgentOut>;

export function toAgentOut(agent: AgentRecord): AgentOutput {
  return {
    id: agent.id,
    slug: agent.slug,
    name: agent.name,
    email: agent.email,
    phone: agent.phone ?? null,
    is_admin: agent.isAdmin,
    created_at: agent.createdAt,
    updated_at: agent.updatedAt,
  };
}
