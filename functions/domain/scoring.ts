import * as z from 'zod/mini';
import { BUYER_TYPES, RECOMMENDED_ACTIONS, type ScoreTier, tierOf } from './leads.ts';

/**
 * Lead Scoring (issue: leads). What a scorer sees of a Lead, what it answers, and the local
 * rule-based scorer whose signals and weights are documented here (docs/scoring.md).
 */
export interface ScoringInput {
  now: string;
  lead: {
    name: string;
    email: string | null;
    phone: string | null;
    notes: string | null;
    locale: string | null;
    source: string;
    createdAt: string;
  };
  /** Inquiries and registrations, newest first. */
  inquiries: {
    occurredAt: string;
    message: string | null;
    propertyPrice: string | null;
    propertyCurrency: string | null;
    listingType: string | null;
  }[];
  activityCount: number;
  criteria: {
    listingType: string | null;
    minPrice: string | null;
    maxPrice: string | null;
    currency: string | null;
    minBeds: number | null;
    propertyTypes: string[];
    placeCodes: string[];
    areaIds: string[];
    amenities: string[];
  } | null;
}

export const ScoreOutput = z.object({
  score: z.number().check(z.int(), z.gte(0), z.lte(100)),
  buyer_type: z.enum(BUYER_TYPES),
  recommended_action: z.enum(RECOMMENDED_ACTIONS),
  reasons: z.array(z.string().check(z.minLength(1), z.maxLength(200))).check(z.minLength(1), z.maxLength(8)),
});
export type ScoreOutput = z.infer<typeof ScoreOutput>;

export interface Score extends ScoreOutput {
  tier: ScoreTier;
}

/** The local scorer's weights (points out of 100). */
export const WEIGHTS = {
  recency: 30,
  completeness: 20,
  engagement: 20,
  budget: 15,
  specificity: 15,
} as const;

const DAY = 86_400_000;

function daysBetween(a: string, b: string): number {
  return Math.max(0, (Date.parse(b) - Date.parse(a)) / DAY);
}

/**
 * Rule-based score:
 * - recency (30): the last inquiry today 30, fading linearly to 0 at 30 days;
 * - completeness (20): email 8, phone 8, notes or a message (on any inquiry) 4;
 * - engagement (20): 6 per inquiry (up to 3) plus 1 per activity (up to 2);
 * - budget (15): a price bound that covers the price of a listing asked about 15, a bound alone 8
 *   (only listings in the criteria's currency, and of its listing type when set, are compared);
 * - specificity (15): 3 per criterion set (listing type, price, beds, property type, place or area).
 * Buyer type, first rule that applies: listing type rent (criteria or a listing asked about) →
 * renter; words in the notes or messages "invest", "yield", "rental income", "roi" → investor;
 * "retire", "pension" → retiree; "holiday", "vacation", "summer", "second home" → vacation_home;
 * "relocat", "new job", "moving to", "move to" → relocation; else local_buyer when criteria or an
 * inquiry exists, unknown otherwise. Action by tier: hot call_immediately, warm send_comps,
 * moderate nurture_sequence, cold low_priority.
 */
export function scoreLocally(input: ScoringInput): Score {
  const reasons: string[] = [];
  const last = input.inquiries[0];
  let recency = 0;
  if (last) {
    const age = daysBetween(last.occurredAt, input.now);
    recency = Math.round(WEIGHTS.recency * Math.max(0, 1 - age / 30));
    reasons.push(age < 1 ? 'Got in touch today' : `Last got in touch ${Math.round(age)} days ago`);
  } else {
    reasons.push('No inquiry yet');
  }
  const completeness =
    (input.lead.email ? 8 : 0) +
    (input.lead.phone ? 8 : 0) +
    (input.lead.notes || input.inquiries.some((i) => i.message) ? 4 : 0);
  if (input.lead.email && input.lead.phone) reasons.push('Both email and phone known');
  const engagement = Math.min(3, input.inquiries.length) * 6 + Math.min(2, input.activityCount);
  if (input.inquiries.length > 1) reasons.push(`${input.inquiries.length} inquiries`);

  let budget = 0;
  const c = input.criteria;
  if (c && (c.minPrice || c.maxPrice)) {
    // Only comparable prices: the criteria's currency, and its listing type when it has one.
    const asked = input.inquiries
      .filter((i) => i.propertyCurrency === c.currency && (!c.listingType || i.listingType === c.listingType))
      .map((i) => i.propertyPrice)
      .filter((p): p is string => p !== null);
    const within = asked.some(
      (p) =>
        (!c.maxPrice || Number(p) <= Number(c.maxPrice)) && (!c.minPrice || Number(p) >= Number(c.minPrice)),
    );
    budget = within ? WEIGHTS.budget : 8;
    reasons.push(within ? 'Budget covers the listings asked about' : 'Has a stated budget');
  }
  let specificity = 0;
  if (c) {
    const set = [
      c.listingType,
      c.minPrice ?? c.maxPrice,
      c.minBeds,
      c.propertyTypes.length,
      c.placeCodes.length + c.areaIds.length,
    ].filter((v) => v !== null && v !== 0 && v !== undefined).length;
    specificity = Math.min(WEIGHTS.specificity, set * 3);
    if (set >= 3) reasons.push('Specific search criteria');
  }
  const score = Math.max(0, Math.min(100, recency + completeness + engagement + budget + specificity));
  const tier = tierOf(score);
  return {
    score,
    tier,
    buyer_type: buyerType(input),
    recommended_action:
      tier === 'hot'
        ? 'call_immediately'
        : tier === 'warm'
          ? 'send_comps'
          : tier === 'moderate'
            ? 'nurture_sequence'
            : 'low_priority',
    reasons: reasons.slice(0, 8),
  };
}

function buyerType(input: ScoringInput): ScoreOutput['buyer_type'] {
  const text = [input.lead.notes, ...input.inquiries.map((i) => i.message)]
    .filter(Boolean)
    .join(' ')
    .toLowerCase();
  if (input.criteria?.listingType === 'rent' || input.inquiries.some((i) => i.listingType === 'rent'))
    return 'renter';
  if (/invest|yield|rental income|\broi\b/.test(text)) return 'investor';
  if (/retire|pension/.test(text)) return 'retiree';
  if (/holiday|vacation|summer|second home/.test(text)) return 'vacation_home';
  if (/relocat|new job|moving to|move to/.test(text)) return 'relocation';
  if (input.criteria || input.inquiries.length > 0) return 'local_buyer';
  return 'unknown';
}
