import { describe, expect, it } from 'vitest';
import { Lead } from '../../functions/data/entities/lead.ts';
import { LeadSearchToken } from '../../functions/data/entities/lead-search-token.ts';
import { UniqueClaim } from '../../functions/data/entities/unique-claim.ts';
import { tokensOf } from '../../functions/data/lead-search.ts';
import { leadClaimOf, withDerivedKeys } from '../../functions/data/leads.ts';
import { itemBuilder } from '../../scripts/bench/bulk.ts';
import { leadAt } from '../../scripts/bench/data.ts';

type LeadRecord = ReturnType<typeof withDerivedKeys>;

/** The claims writeLead makes for a Lead: its email and its phone. */
const claimsOf = (lead: LeadRecord) =>
  [
    ...(lead.email ? [{ kind: 'lead-email' as const, value: lead.email }] : []),
    ...(lead.phone ? [{ kind: 'lead-phone' as const, value: lead.phone }] : []),
  ].map((claim) => leadClaimOf(lead, claim));

describe('the leads bench seeds the items the service writes', () => {
  it('builds each Lead, search token and claim item exactly as ElectroDB put params do', () => {
    // Prepare: 300 Leads of the bench population, the first 120 archived as --archived archives them.
    const options = { tenantId: 'tenant-1', count: 300, agentIds: ['agent-1', 'agent-2'], now: new Date() };
    const leads = Array.from({ length: 300 }, (_, i) => {
      const generated = leadAt(i, options);
      return withDerivedKeys(i < 120 ? { ...generated, isActive: false } : generated);
    });
    const leadItem = itemBuilder<LeadRecord>(Lead);
    const tokenItem = itemBuilder<ReturnType<typeof tokensOf>[number]>(LeadSearchToken);
    const claimItem = itemBuilder<ReturnType<typeof leadClaimOf>>(UniqueClaim);
    // Act
    const built = leads.map((lead) => ({
      lead: leadItem(lead),
      tokens: tokensOf(lead).map(tokenItem),
      claims: claimsOf(lead).map(claimItem),
    }));
    // Assess
    const item = (params: { Item: Record<string, unknown> }) => params.Item;
    for (const [n, lead] of leads.entries()) {
      expect(built[n]).toEqual({
        lead: item(Lead.put(lead).params()),
        tokens: tokensOf(lead).map((token) => item(LeadSearchToken.put(token).params())),
        claims: claimsOf(lead).map((claim) => item(UniqueClaim.put(claim).params())),
      });
    }
    const archived = built.filter((b) => b.lead.gsi1pk === 't#tenant-1#archived-leads');
    expect(archived).toHaveLength(leads.filter((l) => !l.isActive).length);
    expect(archived.length).toBeGreaterThanOrEqual(120);
    expect(built.flatMap((b) => b.claims).length).toBeGreaterThan(300);
  });
});
