import type { EntityItem } from 'electrodb';
import { Agent } from './entities/agent.ts';
import { UniqueClaim } from './entities/unique-claim.ts';
import { agentWrites } from './service.ts';
import { failedCondition, writeTransaction } from './transactions.ts';

export type AgentRecord = EntityItem<typeof Agent>;

/** An Agent by id, strongly consistent: a listing or Lead may name an Agent made a moment ago. */
export async function getAgent(tenantId: string, id: string): Promise<AgentRecord | undefined> {
  const { data } = await Agent.get({ tenantId, id }).go({ consistent: true });
  return data ?? undefined;
}

/**
 * An Agent by email. The email index (gsi2) is never consistent, so the Agent is found through its
 * email claim (same key, read consistently), as an API key is through its hash: an Agent made a
 * moment ago is found by the write that names it.
 */
export async function findAgentByEmail(tenantId: string, email: string): Promise<AgentRecord | undefined> {
  const { data: claim } = await UniqueClaim.get({
    scope: `t#${tenantId}`,
    kind: 'agent-email',
    value: email,
  }).go({
    consistent: true,
  });
  return claim ? getAgent(tenantId, claim.ownerId) : undefined;
}

/** Inserts the Agent with claims on its email and slug; returns which claim was refused, if any. */
export async function insertAgent(record: AgentRecord): Promise<'ok' | 'email_taken' | 'slug_taken'> {
  const scope = `t#${record.tenantId}`;
  const result = await writeTransaction(() =>
    agentWrites()
      .transaction.write(({ UniqueClaim, Agent: a }) => [
        UniqueClaim.create({
          scope,
          kind: 'agent-email',
          value: record.email,
          ownerId: record.id,
          createdAt: record.createdAt,
        }).commit(),
        UniqueClaim.create({
          scope,
          kind: 'agent-slug',
          value: record.slug,
          ownerId: record.id,
          createdAt: record.createdAt,
        }).commit(),
        a.create(record).commit(),
      ])
      .go(),
  );
  if (!result.canceled) return 'ok';
  return failedCondition(result) === 0 ? 'email_taken' : 'slug_taken';
}

/** The Tenant's active Agents, by id (the round-robin order of Lead assignment). */
export async function listActiveAgents(tenantId: string): Promise<AgentRecord[]> {
  const { data } = await Agent.query
    .byTenant({ tenantId })
    .where(({ isActive }, { eq }) => eq(isActive, true))
    .go({ pages: 'all' });
  return data;
}

export interface AgentPageQuery {
  tenantId: string;
  limit: number;
  after?: { updatedAt: string; id: string } | undefined;
  since?: string | undefined;
}

/** The Tenant's Agents least recently updated first (gsi3), one more than `limit`. */
export async function queryAgents(q: AgentPageQuery): Promise<AgentRecord[]> {
  const partition = Agent.query.byUpdated({ tenantId: q.tenantId });
  const ranged = q.after
    ? partition.gt(q.after)
    : q.since
      ? partition.gte({ updatedAt: q.since })
      : partition;
  const { data } = await ranged.go({ limit: q.limit + 1, count: q.limit + 1 });
  return data;
}

/**
 * Writes the Tenant's Agents again as they are, so that each carries every index key of the current
 * model (Agents stored before gsi3 existed are missing from GET /v1/agents until then). Idempotent;
 * the local stack runs it for the demo tenant of an existing data directory.
 */
export async function reindexAgents(tenantId: string): Promise<number> {
  const { data } = await Agent.query.byTenant({ tenantId }).go({ pages: 'all' });
  for (const agent of data) await Agent.put(agent).go();
  return data.length;
}
