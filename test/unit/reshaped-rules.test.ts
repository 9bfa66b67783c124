import { describe, expect, it } from 'vitest';
import { EDIT_ATTEMPTS, RETRY, withOptimisticRetry } from '../../functions/data/optimistic.ts';
import { nextTimestamp } from '../../functions/data/timestamps.ts';
import { planListingChange, withEnrichmentRequest } from '../../functions/domain/listing-change.ts';
import { assignmentNotice, inquiryNotice } from '../../functions/domain/owner-notices.ts';
import { ownerBeforeRoundRobin, roundRobinOwner } from '../../functions/domain/owner-rule.ts';

const NOW = '2026-05-01T10:00:00.000Z';
const author = { name: 'crm key', via: 'api' as const };
const lookups = { author, language: 'en', sourceLanguage: 'en', agentId: undefined, place: undefined };

describe('planListingChange (pure: the lookups come resolved)', () => {
  it('keeps only what changes, records a price change, and asks for enrichment on create', () => {
    // Act
    const plan = planListingChange(
      undefined,
      { title: 'Villa', price: '450000', currency: 'EUR' },
      lookups,
      NOW,
    );
    // Assess
    expect(plan.set).toMatchObject({ title: 'Villa', price: '450000', currency: 'EUR' });
    expect(plan.set.priceHistory).toEqual([
      { price: '450000', rent_price: null, currency: 'EUR', changed_at: NOW, changed_by: 'crm key' },
    ]);
    expect(plan.enrichment).toBe('request');
  });

  it('plans nothing for a write of what the listing already holds', () => {
    // Prepare
    const current = { title: 'Villa', price: '1', currency: 'EUR', bedrooms: 3 };
    // Act
    const plan = planListingChange(current, { price: '1', bedrooms: 3 }, lookups, NOW);
    // Assess
    expect(plan).toEqual({ set: {}, clear: new Set(), placeChanged: false, enrichment: undefined });
  });

  it('clears on null, uses the resolved Agent and Place, and withdraws a queued request switched off', () => {
    // Prepare
    const current = { bedrooms: 3, enrichmentStatus: 'pending', aiEnrichment: true };
    // Act
    const plan = planListingChange(
      current,
      { bedrooms: null, agent_id: 'a1', place_code: 'es-mal', ai_enrichment: false },
      { ...lookups, agentId: 'a1', place: { code: 'es-mal', path: [{ code: 'es' }] } },
      NOW,
    );
    // Assess
    expect(plan.set).toMatchObject({ agentId: 'a1', placeCode: 'es-mal', aiEnrichment: false });
    expect([...plan.clear].sort()).toEqual(['bedrooms', 'enrichmentRequestId', 'enrichmentStatus']);
    expect(plan.placeChanged).toBe(true);
    expect(plan.enrichment).toBe('withdraw');
  });

  it('completes a requested enrichment with its id and status, clearing an old error', () => {
    // Prepare
    const plan = planListingChange(undefined, { title: 'Villa' }, lookups, NOW);
    // Act
    const done = withEnrichmentRequest(plan, { enrichmentError: 'boom' }, { id: 'r1', status: 'paused' });
    // Assess
    expect(done.set).toMatchObject({
      enrichmentStatus: 'paused',
      enrichmentRequestId: 'r1',
      enrichmentAttempts: 0,
    });
    expect(done.clear.has('enrichmentError')).toBe(true);
  });
});

describe('the owner rule (pure)', () => {
  it("prefers the listing's active Agent, then the named active Agent, else round-robin", () => {
    expect(ownerBeforeRoundRobin({ id: 'l', isActive: true }, { id: 'n', isActive: true })).toBe('l');
    expect(ownerBeforeRoundRobin({ id: 'l', isActive: false }, { id: 'n', isActive: true })).toBe('n');
    expect(ownerBeforeRoundRobin(undefined, { id: 'n', isActive: false })).toBeUndefined();
  });

  it('takes turns in id order, wrapping around; no Agent: nobody', () => {
    expect([1, 2, 3, 4].map((turn) => roundRobinOwner(['c', 'a', 'b'], turn))).toEqual(['a', 'b', 'c', 'a']);
    expect(roundRobinOwner([], 1)).toBeUndefined();
  });
});

describe('owner notices (pure)', () => {
  const lead = { id: 'L1', name: 'Ana', email: 'ana@example.com', notes: 'Wants sea view' };
  it('tells the Owner about an Inquiry and the listing it names', () => {
    const notice = inquiryNotice(
      lead,
      { type: 'inquiry', source: 'idealista', occurredAt: NOW, message: 'Visit?' },
      { title: 'Villa', internalRef: 'R-1', slug: 'villa' },
    );
    expect(notice.subject).toBe('New inquiry from Ana about "Villa"');
    for (const part of [
      'ana@example.com',
      'Phone: (none)',
      'Listing: Villa (R-1, villa)',
      'Visit?',
      'Lead id: L1',
    ])
      expect(notice.text).toContain(part);
  });
  it('tells an Agent they own a Lead now', () => {
    expect(assignmentNotice(lead)).toMatchObject({ subject: 'New lead assigned to you: Ana' });
    expect(assignmentNotice(lead).text).toContain('Wants sea view');
  });
});

describe('withOptimisticRetry and nextTimestamp (no table needed)', () => {
  it('retries from a fresh attempt until one lands', async () => {
    const seen: number[] = [];
    const result = await withOptimisticRetry(
      async (n) => {
        seen.push(n);
        return n < 3 ? RETRY : 'landed';
      },
      { attempts: EDIT_ATTEMPTS, exhausted: () => 'gave up' },
    );
    expect(result).toBe('landed');
    expect(seen).toEqual([1, 2, 3]);
  });

  it('answers what exhausted says after the last attempt, and no more attempts', async () => {
    let attempts = 0;
    const result = await withOptimisticRetry(
      async () => {
        attempts++;
        return RETRY;
      },
      { attempts: 2, exhausted: () => 'gave up' },
    );
    expect([result, attempts]).toEqual(['gave up', 2]);
  });

  it('is strictly later than the version it replaces, even one from the future', () => {
    const future = new Date(Date.now() + 60_000).toISOString();
    expect(nextTimestamp(future)).toBe(new Date(Date.parse(future) + 1).toISOString());
    expect(nextTimestamp(NOW) > NOW).toBe(true);
  });
});
