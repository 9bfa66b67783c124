import { randomUUID } from 'node:crypto';
import { type AgentRecord, getAgent, insertAgent, queryAgents } from '../data/agents.ts';
import { slugCandidate, slugify } from '../domain/slug.ts';
import { ConflictError, NotFoundError } from '../kernel/errors.ts';
import { pageFrom, readCursor } from './paging.ts';
import { AdminInputError } from './tenants.ts';

export interface AgentCreateInput {
  tenantId: string;
  name: string;
  email: string;
  phone?: string;
  isAdmin?: boolean;
}

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export async function createAgent(input: AgentCreateInput): Promise<AgentRecord> {
  const name = input.name.trim();
  const email = input.email.trim().toLowerCase();
  if (!name) throw new AdminInputError('--name must not be empty');
  if (!EMAIL.test(email) || email.length > 320) throw new AdminInputError('--email must be an email address');
  const now = new Date().toISOString();
  const id = randomUUID();
  for (let attempt = 1; attempt <= 20; attempt++) {
    const record: AgentRecord = {
      tenantId: input.tenantId,
      id,
      slug: slugCandidate(slugify(name), attempt),
      name,
      email,
      ...(input.phone ? { phone: input.phone.trim() } : {}),
      isAdmin: input.isAdmin ?? false,
      isActive: true,
      createdAt: now,
      updatedAt: now,
    };
    const outcome = await insertAgent(record);
    if (outcome === 'ok') return record;
    if (outcome === 'email_taken')
      throw new ConflictError(`An agent with email ${email} already exists in this tenant`);
  }
  throw new ConflictError('Could not find a free slug for this agent name');
}

/** GET /v1/agents/{agent_id}: an unknown id, or another Tenant's Agent, → 404. */
export async function readAgent(tenantId: string, id: string): Promise<AgentRecord> {
  const agent = await getAgent(tenantId, id);
  if (!agent) throw new NotFoundError('No agent with this id');
  return agent;
}

/** GET /v1/agents: a page of the Tenant's Agents by (updated_at, id), from gsi3. */
export async function listAgents<O>(
  tenantId: string,
  q: { limit: number; cursor?: string | undefined; updated_since?: string | undefined },
  present: (agent: AgentRecord) => O,
) {
  const scope = [tenantId, 'agents', q.updated_since ?? ''].join(':');
  const after = readCursor(q.cursor, scope);
  const items = await queryAgents({ tenantId, limit: q.limit, after, since: q.updated_since });
  return pageFrom(items, q.limit, scope, present);
}
