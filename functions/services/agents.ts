import { randomUUID } from 'node:crypto';
import { type AgentRecord, insertAgent } from '../data/agents.ts';
import { slugCandidate, slugify } from '../domain/slug.ts';
import { ConflictError } from '../platform/errors.ts';
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
