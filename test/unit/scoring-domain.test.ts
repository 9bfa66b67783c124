import { describe, expect, it } from 'vitest';
import { BUYER_TYPES, tierOf } from '../../functions/domain/leads.ts';
import { type ScoringInput, scoreLocally, WEIGHTS } from '../../functions/domain/scoring.ts';

const NOW = '2026-03-15T12:00:00.000Z';
const DAY = 86_400_000;
const daysAgo = (days: number) => new Date(Date.parse(NOW) - days * DAY).toISOString();

type Inquiry = ScoringInput['inquiries'][number];
type Criteria = NonNullable<ScoringInput['criteria']>;

/** A Lead with a name only: no contact, no inquiry, no activity, no criteria (scores 0). */
function input(
  overrides: Partial<Omit<ScoringInput, 'lead'>> & { lead?: Partial<ScoringInput['lead']> } = {},
) {
  const { lead, ...rest } = overrides;
  return {
    now: NOW,
    inquiries: [],
    activityCount: 0,
    criteria: null,
    ...rest,
    lead: {
      name: 'Ana',
      email: null,
      phone: null,
      notes: null,
      locale: null,
      source: 'api',
      createdAt: daysAgo(60),
      ...lead,
    },
  } satisfies ScoringInput;
}

function inquiry(overrides: Partial<Inquiry> = {}): Inquiry {
  return {
    occurredAt: daysAgo(100),
    message: null,
    propertyPrice: null,
    propertyCurrency: null,
    listingType: null,
    ...overrides,
  };
}

function criteria(overrides: Partial<Criteria> = {}): Criteria {
  return {
    listingType: null,
    minPrice: null,
    maxPrice: null,
    currency: null,
    minBeds: null,
    propertyTypes: [],
    placeCodes: [],
    areaIds: [],
    amenities: [],
    ...overrides,
  };
}

const score = (i: ScoringInput) => scoreLocally(i).score;

describe('scoreLocally: weights', () => {
  it('documents weights that add up to 100', () => {
    // Prepare / Act
    const total = Object.values(WEIGHTS).reduce((a, b) => a + b, 0);
    // Assess
    expect(WEIGHTS).toEqual({ recency: 30, completeness: 20, engagement: 20, budget: 15, specificity: 15 });
    expect(total).toBe(100);
  });

  it('scores a Lead with nothing to go on 0, cold, low priority, unknown buyer, with a reason', () => {
    // Act
    const result = scoreLocally(input());
    // Assess
    expect(result).toEqual({
      score: 0,
      tier: 'cold',
      buyer_type: 'unknown',
      recommended_action: 'low_priority',
      reasons: ['No inquiry yet'],
    });
  });
});

describe('scoreLocally: recency (30, fading to 0 at 30 days)', () => {
  // One old inquiry alone is worth engagement 6; the rest is recency.
  const recency = (days: number) => score(input({ inquiries: [inquiry({ occurredAt: daysAgo(days) })] })) - 6;

  it('gives 30 for an inquiry today, fading linearly, and 0 from 30 days on', () => {
    // Act / Assess
    expect(recency(0)).toBe(30);
    expect(recency(10)).toBe(20);
    expect(recency(15)).toBe(15);
    expect(recency(29)).toBe(1);
    expect(recency(30)).toBe(0);
    expect(recency(45)).toBe(0);
    expect(recency(365)).toBe(0);
  });

  it('never gives more than 30 for an inquiry dated in the future', () => {
    // Act / Assess
    expect(recency(-3)).toBe(30);
  });

  it('uses the newest inquiry (the first) and says when the Lead last got in touch', () => {
    // Prepare
    const newestFirst = [inquiry({ occurredAt: daysAgo(5) }), inquiry({ occurredAt: daysAgo(25) })];
    // Act
    const result = scoreLocally(input({ inquiries: newestFirst }));
    // Assess: recency 25 + engagement 12
    expect(result.score).toBe(37);
    expect(result.reasons).toContain('Last got in touch 5 days ago');
    expect(result.reasons).toContain('2 inquiries');
    expect(scoreLocally(input({ inquiries: [inquiry({ occurredAt: NOW })] })).reasons).toContain(
      'Got in touch today',
    );
  });
});

describe('scoreLocally: completeness (email 8, phone 8, notes or a message 4)', () => {
  it('gives each part its points', () => {
    // Act / Assess
    expect(score(input({ lead: { email: 'a@example.com' } }))).toBe(8);
    expect(score(input({ lead: { phone: '+34600123456' } }))).toBe(8);
    expect(score(input({ lead: { notes: 'Wants a sea view' } }))).toBe(4);
    expect(score(input({ lead: { email: 'a@example.com', phone: '+34600123456', notes: 'x' } }))).toBe(20);
  });

  it('counts a message on an inquiry like notes, and notes plus a message only once', () => {
    // Prepare: old inquiries (engagement only)
    const messaged = [inquiry(), inquiry({ message: 'Is it still available?' })];
    // Act / Assess: 2 inquiries (12) + message (4)
    expect(score(input({ inquiries: messaged }))).toBe(16);
    expect(score(input({ inquiries: messaged, lead: { notes: 'Called twice' } }))).toBe(16);
    expect(score(input({ inquiries: [inquiry(), inquiry()] }))).toBe(12);
  });

  it('says so when both email and phone are known', () => {
    // Act
    const both = scoreLocally(input({ lead: { email: 'a@example.com', phone: '+34600123456' } }));
    const one = scoreLocally(input({ lead: { email: 'a@example.com' } }));
    // Assess
    expect(both.reasons).toContain('Both email and phone known');
    expect(one.reasons).not.toContain('Both email and phone known');
  });
});

describe('scoreLocally: engagement (6 per inquiry up to 3, 1 per activity up to 2)', () => {
  const engagement = (inquiries: number, activityCount: number) =>
    score(input({ inquiries: Array.from({ length: inquiries }, () => inquiry()), activityCount }));

  it('counts inquiries and activities up to their caps', () => {
    // Act / Assess
    expect(engagement(1, 0)).toBe(6);
    expect(engagement(2, 0)).toBe(12);
    expect(engagement(3, 0)).toBe(18);
    expect(engagement(7, 0)).toBe(18);
    expect(engagement(0, 1)).toBe(1);
    expect(engagement(0, 2)).toBe(2);
    expect(engagement(0, 20)).toBe(2);
    expect(engagement(5, 9)).toBe(20);
  });
});

describe('scoreLocally: budget (15 when a bound covers an asked listing, 8 for a bound alone)', () => {
  const asked = (price: string, extra: Partial<Inquiry> = {}) =>
    inquiry({ propertyPrice: price, propertyCurrency: 'EUR', listingType: 'sale', ...extra });
  /** Budget points: the score less the inquiries' engagement and the criteria's specificity. */
  function budget(c: Criteria, inquiries: Inquiry[] = []) {
    const set = [c.listingType, c.minPrice ?? c.maxPrice, c.minBeds].filter((v) => v !== null).length;
    return score(input({ inquiries, criteria: c })) - Math.min(3, inquiries.length) * 6 - set * 3;
  }

  it('gives 15 when the bounds cover the price of a listing asked about', () => {
    // Act / Assess
    expect(budget(criteria({ maxPrice: '500000', currency: 'EUR' }), [asked('450000')])).toBe(15);
    expect(budget(criteria({ maxPrice: '450000', currency: 'EUR' }), [asked('450000')])).toBe(15);
    expect(budget(criteria({ minPrice: '300000', currency: 'EUR' }), [asked('450000')])).toBe(15);
    expect(
      budget(criteria({ minPrice: '300000', maxPrice: '500000', currency: 'EUR' }), [
        asked('900000'),
        asked('400000'),
      ]),
    ).toBe(15);
    expect(
      scoreLocally(input({ inquiries: [asked('1')], criteria: criteria({ maxPrice: '2', currency: 'EUR' }) }))
        .reasons,
    ).toContain('Budget covers the listings asked about');
  });

  it('gives 8 for a bound alone: no listing asked about, or none within the bounds', () => {
    // Act / Assess
    expect(budget(criteria({ maxPrice: '500000', currency: 'EUR' }))).toBe(8);
    expect(budget(criteria({ maxPrice: '500000', currency: 'EUR' }), [inquiry()])).toBe(8);
    expect(budget(criteria({ maxPrice: '400000', currency: 'EUR' }), [asked('450000')])).toBe(8);
    expect(budget(criteria({ minPrice: '500000', currency: 'EUR' }), [asked('450000')])).toBe(8);
    expect(
      scoreLocally(input({ criteria: criteria({ maxPrice: '500000', currency: 'EUR' }) })).reasons,
    ).toContain('Has a stated budget');
  });

  it('compares only prices in the criteria currency and of its listing type', () => {
    // Act / Assess
    expect(
      budget(criteria({ maxPrice: '500000', currency: 'EUR' }), [
        asked('450000', { propertyCurrency: 'GBP' }),
      ]),
    ).toBe(8);
    expect(
      budget(criteria({ listingType: 'sale', maxPrice: '500000', currency: 'EUR' }), [
        asked('1500', { listingType: 'rent' }),
      ]),
    ).toBe(8);
  });

  it('gives nothing without a price bound', () => {
    // Act / Assess
    expect(budget(criteria({ minBeds: 3 }), [asked('450000')])).toBe(0);
    expect(budget(criteria(), [asked('450000')])).toBe(0);
  });
});

describe('scoreLocally: specificity (3 per criterion, up to 15)', () => {
  const specificity = (c: Criteria) => {
    const budget = c.minPrice || c.maxPrice ? 8 : 0;
    return score(input({ criteria: c })) - budget;
  };

  it('gives 3 for each criterion set and 15 for all five', () => {
    // Act / Assess
    expect(specificity(criteria())).toBe(0);
    expect(specificity(criteria({ listingType: 'sale' }))).toBe(3);
    expect(specificity(criteria({ minPrice: '100000', currency: 'EUR' }))).toBe(3);
    expect(specificity(criteria({ minPrice: '100000', maxPrice: '200000', currency: 'EUR' }))).toBe(3);
    expect(specificity(criteria({ minBeds: 2 }))).toBe(3);
    expect(specificity(criteria({ propertyTypes: ['villa', 'apartment'] }))).toBe(3);
    expect(specificity(criteria({ placeCodes: ['ES-MA'] }))).toBe(3);
    expect(specificity(criteria({ areaIds: ['a1'] }))).toBe(3);
    expect(specificity(criteria({ placeCodes: ['ES-MA'], areaIds: ['a1'] }))).toBe(3);
    expect(
      specificity(
        criteria({
          listingType: 'sale',
          maxPrice: '500000',
          currency: 'EUR',
          minBeds: 3,
          propertyTypes: ['villa'],
          placeCodes: ['ES-MA'],
          areaIds: ['a1'],
          amenities: ['pool'],
        }),
      ),
    ).toBe(15);
  });

  it('does not count amenities nor a minimum of 0 beds', () => {
    // Act / Assess
    expect(specificity(criteria({ amenities: ['pool', 'garden'] }))).toBe(0);
    expect(specificity(criteria({ minBeds: 0 }))).toBe(0);
  });

  it('calls three or more criteria specific', () => {
    // Act
    const three = scoreLocally(
      input({ criteria: criteria({ listingType: 'sale', minBeds: 2, propertyTypes: ['villa'] }) }),
    );
    const two = scoreLocally(input({ criteria: criteria({ listingType: 'sale', minBeds: 2 }) }));
    // Assess
    expect(three.reasons).toContain('Specific search criteria');
    expect(two.reasons).not.toContain('Specific search criteria');
  });
});

describe('scoreLocally: score range, tiers and actions', () => {
  const everything = (days: number) =>
    input({
      lead: { email: 'a@example.com', phone: '+34600123456', notes: 'Serious buyer' },
      inquiries: [0, 1, 2].map(() =>
        inquiry({
          occurredAt: daysAgo(days),
          propertyPrice: '400000',
          propertyCurrency: 'EUR',
          listingType: 'sale',
        }),
      ),
      activityCount: 5,
      criteria: criteria({
        listingType: 'sale',
        maxPrice: '500000',
        currency: 'EUR',
        minBeds: 3,
        propertyTypes: ['villa'],
        placeCodes: ['ES-MA'],
      }),
    });

  it('tops out at exactly 100 with every signal at its maximum, and never leaves 0–100', () => {
    // Act
    const top = scoreLocally(everything(0));
    const future = scoreLocally(everything(-400));
    // Assess
    expect(top.score).toBe(100);
    expect(future.score).toBe(100);
    expect(top.tier).toBe('hot');
    expect(top.reasons.length).toBeGreaterThan(0);
    expect(top.reasons.length).toBeLessThanOrEqual(8);
    expect(scoreLocally(input()).score).toBe(0);
  });

  /**
   * A Lead whose score is exactly `target`: email, phone and a message (20), three inquiries (18)
   * and two activities (2) make 40 (one activity: 39); from 70 on, criteria of five kinds whose
   * budget covers the listings asked about add 30. Recency makes up the rest (30 − days since).
   */
  function scoring(target: number): ScoringInput {
    const base = target >= 70 ? 70 : target >= 40 ? 40 : 39;
    const days = 30 - (target - base);
    return input({
      lead: { email: 'a@example.com', phone: '+34600123456' },
      inquiries: [0, 1, 2].map(() =>
        inquiry({
          occurredAt: daysAgo(days),
          message: 'Hello',
          propertyPrice: '400000',
          propertyCurrency: 'EUR',
          listingType: 'sale',
        }),
      ),
      activityCount: base === 39 ? 1 : 2,
      criteria:
        base === 70
          ? criteria({
              listingType: 'sale',
              maxPrice: '500000',
              currency: 'EUR',
              minBeds: 3,
              propertyTypes: ['villa'],
              areaIds: ['a1'],
            })
          : null,
    });
  }

  it.each([
    [100, 'hot', 'call_immediately'],
    [80, 'hot', 'call_immediately'],
    [79, 'warm', 'send_comps'],
    [60, 'warm', 'send_comps'],
    [59, 'moderate', 'nurture_sequence'],
    [40, 'moderate', 'nurture_sequence'],
    [39, 'cold', 'low_priority'],
  ] as const)('scores %i as %s with action %s (the tier thresholds)', (target, tier, action) => {
    // Act
    const result = scoreLocally(scoring(target));
    // Assess
    expect(result.score).toBe(target);
    expect(result.tier).toBe(tier);
    expect(result.recommended_action).toBe(action);
    expect(result.reasons.length).toBeGreaterThan(0);
  });

  it('tiers every score by the thresholds of docs/scoring.md', () => {
    // Act
    const tiers = Array.from({ length: 101 }, (_, s) => tierOf(s));
    // Assess
    expect(tiers.slice(0, 40).every((t) => t === 'cold')).toBe(true);
    expect(tiers.slice(40, 60).every((t) => t === 'moderate')).toBe(true);
    expect(tiers.slice(60, 80).every((t) => t === 'warm')).toBe(true);
    expect(tiers.slice(80).every((t) => t === 'hot')).toBe(true);
  });
});

describe('scoreLocally: buyer type', () => {
  const said = (message: string, extra: Partial<ScoringInput> = {}) =>
    scoreLocally(input({ inquiries: [inquiry({ message })], ...extra })).buyer_type;

  it('is renter when the criteria or a listing asked about is for rent', () => {
    // Act / Assess
    expect(scoreLocally(input({ criteria: criteria({ listingType: 'rent' }) })).buyer_type).toBe('renter');
    expect(scoreLocally(input({ inquiries: [inquiry({ listingType: 'rent' })] })).buyer_type).toBe('renter');
    // before any word: a rent search mentioning a job move is still a renter
    expect(said('Relocating for a new job', { criteria: criteria({ listingType: 'rent' }) })).toBe('renter');
  });

  it.each([
    ['Looking to INVEST in a flat', 'investor'],
    ['What yield could I expect?', 'investor'],
    ['Rental income matters to me', 'investor'],
    ['Good ROI please', 'investor'],
    ['We retire next year', 'retiree'],
    ['Living off my pension', 'retiree'],
    ['A holiday home by the sea', 'vacation_home'],
    ['For our vacation', 'vacation_home'],
    ['Summer only', 'vacation_home'],
    ['A second home', 'vacation_home'],
    ['We are relocating from Berlin', 'relocation'],
    ['Relocation package from my employer', 'relocation'],
    ['I start a new job in town', 'relocation'],
    ['Moving to the coast', 'relocation'],
    ['We want to move to Spain', 'relocation'],
    ['Is the flat still available?', 'local_buyer'],
  ] as const)('reads "%s" as %s', (message, type) => {
    // Act / Assess
    expect(said(message)).toBe(type);
  });

  it('reads the notes too, and the first matching rule wins', () => {
    // Act / Assess
    expect(scoreLocally(input({ lead: { notes: 'Retired teacher' } })).buyer_type).toBe('retiree');
    expect(said('Investment for our retirement')).toBe('investor');
  });

  it('does not take "roi" inside another word for return on investment', () => {
    // Act / Assess
    expect(said('Moving to Detroit')).toBe('relocation');
    expect(said('Android user, no special needs')).toBe('local_buyer');
  });

  it('is local_buyer with criteria or an inquiry and nothing else said, unknown with neither', () => {
    // Act / Assess
    expect(scoreLocally(input({ criteria: criteria({ minBeds: 2 }) })).buyer_type).toBe('local_buyer');
    expect(scoreLocally(input({ inquiries: [inquiry()] })).buyer_type).toBe('local_buyer');
    expect(scoreLocally(input({ lead: { notes: 'Called, no answer' } })).buyer_type).toBe('unknown');
  });

  it('only ever answers a buyer type of docs/scoring.md', () => {
    // Act
    const types = ['invest', 'retire', 'holiday', 'relocat', 'hello'].map((m) => said(m));
    // Assess
    for (const t of types) expect(BUYER_TYPES).toContain(t);
  });
});
