import { queryActivities } from '../data/activities.ts';
import { type AiRunCharge, alreadyCharged, spentThisMonthUsd } from '../data/ai-spend.ts';
import { getInquiry, listLeadInquiries } from '../data/inquiries.ts';
import { getLeadCriteria } from '../data/lead-criteria.ts';
import { getLead, type LeadRecord, type LeadWrite, writeLead } from '../data/leads.ts';
import { getListing } from '../data/listings.ts';
import { EDIT_ATTEMPTS, RETRY, withOptimisticRetry } from '../data/optimistic.ts';
import { getTenant, type TenantRecord } from '../data/tenants.ts';
import { nextTimestamp } from '../data/timestamps.ts';
import { costUsd, spendMonth } from '../domain/enrichment.ts';
import type { Score, ScoringInput } from '../domain/scoring.ts';
import { config } from '../kernel/config.ts';
import { logger } from '../kernel/logger.ts';
import type { ScoreMessage } from '../kernel/messages/ai-queue.ts';
import { LocalScoringProvider, scoringProvider } from '../kernel/ports/scoring.ts';

/** What the scorer sees of a Lead: contact, inquiries (with the asked listings' prices), activity, criteria. */
async function scoringInputOf(lead: LeadRecord, askedBy: string | undefined): Promise<ScoringInput> {
  const [listed, activities, criteria, asking] = await Promise.all([
    listLeadInquiries(lead.tenantId, lead.id, 20),
    queryActivities({ tenantId: lead.tenantId, leadId: lead.id, limit: 20 }),
    getLeadCriteria(lead.tenantId, lead.id),
    askedBy ? getInquiry(lead.tenantId, askedBy) : undefined,
  ]);
  // The index may not list the Inquiry that asked yet (a GSI lags its write): it is read by id.
  const inquiries = asking && !listed.some((i) => i.id === asking.id) ? [asking, ...listed] : listed;
  const propertyIds = [...new Set(inquiries.map((i) => i.propertyId).filter((p): p is string => !!p))].slice(
    0,
    10,
  );
  const properties = new Map(
    (await Promise.all(propertyIds.map((id) => getListing(lead.tenantId, id))))
      .filter((p) => p)
      .map((p) => [p!.id, p!]),
  );
  // Newest first by when they happened: the index orders by write time, and a backfill is written late.
  inquiries.sort((a, b) => Date.parse(b.occurredAt) - Date.parse(a.occurredAt));
  return {
    now: new Date().toISOString(),
    lead: {
      name: lead.name,
      email: lead.email ?? null,
      phone: lead.phone ?? null,
      notes: lead.notes ?? null,
      locale: lead.locale ?? null,
      source: lead.source,
      createdAt: lead.createdAt,
    },
    inquiries: inquiries.map((i) => {
      const p = i.propertyId ? properties.get(i.propertyId) : undefined;
      return {
        occurredAt: i.occurredAt,
        message: i.message ?? null,
        propertyPrice: (p?.listingType === 'rent' ? p?.rentPrice : p?.price) ?? null,
        propertyCurrency: p?.currency ?? null,
        listingType: p?.listingType ?? null,
      };
    }),
    activityCount: activities.length,
    criteria: criteria
      ? {
          listingType: criteria.listingType ?? null,
          minPrice: criteria.minPrice ?? null,
          maxPrice: criteria.maxPrice ?? null,
          currency: criteria.currency ?? null,
          minBeds: criteria.minBeds ?? null,
          propertyTypes: criteria.propertyTypes,
          placeCodes: criteria.placeCodes,
          areaIds: criteria.areaIds,
          amenities: criteria.amenities,
        }
      : null,
  };
}

/** The Tenant's AI off-switch and AI Spend Ceiling (as for enrichment): false → the local rules. */
async function aiAllowed(tenant: TenantRecord): Promise<boolean> {
  if (!tenant.aiEnabled) return false;
  const limit = tenant.aiMonthlyLimitUsd ?? null;
  return limit === null || (await spentThisMonthUsd(tenant.tenantId, spendMonth(new Date()))) < limit;
}

/**
 * (Re)scores a Lead: the provider's score, tier (domain/leads.ts `tierOf`), buyer type, recommended
 * action and reasons are written on the Lead, in one transaction with the run's receipt (created
 * only if absent: the guard of the request) and its charge to the Tenant's AI spend. So a request
 * is written, and so emits `lead.scored`, once and is charged once, however often it is delivered;
 * a redelivery that finds the receipt neither calls the provider nor writes. A Tenant with AI
 * switched off, or at its AI Spend Ceiling, is scored by the local rules (no spend), so every Lead
 * still gets a score.
 */
export async function scoreLead(message: ScoreMessage): Promise<void> {
  const chargeId = `score#${message.leadId}#${message.requestedAt}`;
  const [tenant, first] = await Promise.all([
    getTenant(message.tenantId),
    getLead(message.tenantId, message.leadId),
  ]);
  if (!tenant || !first) return;
  if (await alreadyCharged(tenant.tenantId, chargeId)) return;
  const provider = (await aiAllowed(tenant)) ? scoringProvider() : new LocalScoringProvider();
  const { score, usage } = await provider.score(await scoringInputOf(first, message.inquiryId));
  const { AI_PRICE_INPUT_PER_1K_USD: input, AI_PRICE_OUTPUT_PER_1K_USD: output } = config();
  const run: AiRunCharge = {
    tenantId: tenant.tenantId,
    chargeId,
    month: spendMonth(new Date()),
    costUsd: costUsd(usage, { input, output }),
    usage,
  };
  // The local rules use no model: their receipt guards the request, and nothing is spent.
  await writeScore(message, first, score, { run, withSpend: usage.inputTokens + usage.outputTokens > 0 });
}

/**
 * Writes the score on the latest Lead (re-read when a concurrent write moved it) with the run's
 * charge; false if the Lead is gone, this request was already written (a concurrent delivery got
 * there first), or the Lead never settled (a later request scores it again).
 */
async function writeScore(
  message: ScoreMessage,
  first: LeadRecord,
  score: Score,
  charge: NonNullable<LeadWrite['charge']>,
): Promise<boolean> {
  return withOptimisticRetry(
    async (attempt) => {
      const lead =
        attempt === 1 ? first : await getLead(message.tenantId, message.leadId, { consistent: true });
      if (!lead) return false;
      const now = nextTimestamp(lead.updatedAt);
      const { outcome } = await writeLead({
        previous: lead,
        next: {
          ...lead,
          score: score.score,
          scoreTier: score.tier,
          buyerType: score.buyer_type,
          recommendedAction: score.recommended_action,
          scoreReasons: score.reasons,
          scoredAt: now,
          updatedAt: now,
        },
        charge,
      });
      if (outcome === 'ok') return true;
      return outcome === 'duplicate' ? false : RETRY;
    },
    {
      attempts: EDIT_ATTEMPTS,
      exhausted: () => {
        logger.warn('could not record a score: the Lead kept changing', { leadId: message.leadId });
        return false;
      },
    },
  );
}
