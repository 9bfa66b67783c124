import { afterEach, describe, expect, it } from 'vitest';
import type { ScoringInput } from '../../functions/domain/scoring.ts';
import { ProviderError } from '../../functions/kernel/ports/ai.ts';
import { BedrockScoringProvider } from '../../functions/kernel/ports/scoring.ts';
import { converseAnswer, mockBedrock, rejection, unmockBedrock } from '../support/bedrock.ts';

const MODEL = 'anthropic.claude-test-v1:0';

afterEach(() => {
  unmockBedrock();
});

const input: ScoringInput = {
  now: '2026-03-15T12:00:00.000Z',
  lead: {
    name: 'Ana Torres',
    email: 'ana@example.com',
    phone: '+34600123456',
    notes: null,
    locale: 'es',
    source: 'api',
    createdAt: '2026-03-01T09:00:00.000Z',
  },
  inquiries: [
    {
      occurredAt: '2026-03-14T10:00:00.000Z',
      message: 'We want to retire by the sea',
      propertyPrice: '450000',
      propertyCurrency: 'EUR',
      listingType: 'sale',
    },
  ],
  activityCount: 1,
  criteria: {
    listingType: 'sale',
    minPrice: null,
    maxPrice: '500000',
    currency: 'EUR',
    minBeds: 2,
    propertyTypes: ['apartment'],
    placeCodes: ['ES-MA'],
    areaIds: [],
    amenities: ['pool'],
  },
};

const good = {
  score: 85,
  buyer_type: 'retiree',
  recommended_action: 'call_immediately',
  reasons: ['Asked about a listing yesterday', 'Budget covers the listing'],
};

const answer = (text: string | undefined) =>
  converseAnswer(text, { inputTokens: 640, outputTokens: 90, totalTokens: 730 });

/** The real provider; its Bedrock Runtime client is mocked at the SDK edge. */
const provider = () => new BedrockScoringProvider(MODEL);

describe('BedrockScoringProvider', () => {
  it('parses a JSON answer, derives the tier from the score and returns the token usage', async () => {
    // Prepare
    mockBedrock(answer(JSON.stringify(good)));
    // Act
    const result = await provider().score(input);
    // Assess
    expect(result.score).toEqual({ ...good, tier: 'hot' });
    expect(result.usage).toEqual({ inputTokens: 640, outputTokens: 90 });
  });

  it.each([
    [80, 'hot'],
    [79, 'warm'],
    [60, 'warm'],
    [59, 'moderate'],
    [40, 'moderate'],
    [39, 'cold'],
    [0, 'cold'],
    [100, 'hot'],
  ] as const)('tiers a score of %i as %s, whatever tier the model claims', async (score, tier) => {
    // Prepare
    mockBedrock(answer(JSON.stringify({ ...good, score, tier: 'cold' })));
    // Act
    const result = await provider().score(input);
    // Assess
    expect(result.score.score).toBe(score);
    expect(result.score.tier).toBe(tier);
  });

  it('finds the JSON object inside prose around it', async () => {
    // Prepare
    mockBedrock(answer(`Here is my assessment of the lead:\n\n${JSON.stringify(good)}\n\nLet me know!`));
    // Act
    const result = await provider().score(input);
    // Assess
    expect(result.score.buyer_type).toBe('retiree');
    expect(result.score.tier).toBe('hot');
  });

  it('sends the system prompt, the scoring input as JSON, and temperature 0', async () => {
    // Prepare
    const bedrock = mockBedrock(answer(JSON.stringify(good)));
    // Act
    await provider().score(input);
    // Assess
    const body = bedrock.inputs()[0];
    expect(body).toEqual({
      modelId: MODEL,
      system: [{ text: expect.any(String) }],
      messages: [{ role: 'user', content: [{ text: expect.any(String) }] }],
      inferenceConfig: { maxTokens: expect.any(Number), temperature: 0 },
    });
    const system = String(body?.system?.[0]?.text);
    expect(system).toMatch(/score real-estate leads/);
    expect(system).toMatch(/JSON/);
    expect(system).toMatch(/0-100/);
    for (const type of [
      'investor',
      'retiree',
      'vacation_home',
      'relocation',
      'renter',
      'local_buyer',
      'unknown',
    ])
      expect(system).toContain(type);
    for (const action of ['call_immediately', 'send_comps', 'nurture_sequence', 'low_priority'])
      expect(system).toContain(action);
    expect(JSON.parse(String(body?.messages?.[0]?.content?.[0]?.text))).toEqual(input);
    expect(body?.inferenceConfig?.maxTokens).toBeGreaterThan(0);
  });

  it('refuses text that is not JSON, an empty answer, or an answer without braces', async () => {
    // Prepare
    mockBedrock(
      answer('I would rate this lead {highly}'),
      answer(undefined),
      answer('A hot lead, call them now.'),
    );
    // Act
    const errors = [
      await rejection(provider().score(input)),
      await rejection(provider().score(input)),
      await rejection(provider().score(input)),
    ];
    // Assess
    for (const error of errors) expect(error).toBeInstanceOf(ProviderError);
  });

  it.each([
    ['a score of 101', { ...good, score: 101 }],
    ['a score of -1', { ...good, score: -1 }],
    ['a fractional score', { ...good, score: 72.5 }],
    ['an unknown buyer_type', { ...good, buyer_type: 'speculator' }],
    ['an unknown recommended_action', { ...good, recommended_action: 'wait' }],
    ['9 reasons', { ...good, reasons: Array.from({ length: 9 }, (_, i) => `Reason ${i + 1}`) }],
    ['no reasons', { ...good, reasons: [] }],
    ['a missing score', { buyer_type: 'retiree', recommended_action: 'send_comps', reasons: ['x'] }],
  ])('refuses %s with a ProviderError', async (_, output) => {
    // Prepare
    mockBedrock(answer(JSON.stringify(output)));
    // Act
    const error = await rejection(provider().score(input));
    // Assess
    expect(error).toBeInstanceOf(ProviderError);
    expect((error as Error).message).toMatch(/validation/);
  });

  it('accepts exactly 8 reasons and the bounds 0 and 100', async () => {
    // Prepare
    const eight = { ...good, reasons: Array.from({ length: 8 }, (_, i) => `Reason ${i + 1}`) };
    mockBedrock(
      answer(JSON.stringify(eight)),
      answer(JSON.stringify({ ...good, score: 0 })),
      answer(JSON.stringify({ ...good, score: 100 })),
    );
    // Act
    const results = [
      await provider().score(input),
      await provider().score(input),
      await provider().score(input),
    ];
    // Assess
    expect(results[0]?.score.reasons).toHaveLength(8);
    expect(results.map((r) => r.score.tier)).toEqual(['hot', 'cold', 'hot']);
  });
});
