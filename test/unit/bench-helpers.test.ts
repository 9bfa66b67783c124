import type { Metafile } from 'esbuild';
import { describe, expect, it } from 'vitest';
import { normalizePhone, tierOf } from '../../functions/domain/leads.ts';
import { composition } from '../../scripts/bench/bundles.ts';
import { indexWrites } from '../../scripts/bench/dynamo-costs.ts';
import {
  asciiWord,
  describePopulation,
  itemSize,
  leadAt,
  RARE_SURNAMES,
  uuidOf,
} from '../../scripts/bench/lead-data.ts';
import { median, percentile, summarize } from '../../scripts/bench/stats.ts';

describe('bench statistics', () => {
  it('takes the midpoint for an even count and the middle value for an odd one', () => {
    expect(median([4, 1, 3, 2])).toBe(2.5);
    expect(median([5, 1, 3])).toBe(3);
  });

  it('uses nearest-rank percentiles', () => {
    const sorted = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10];
    expect(percentile(sorted, 90)).toBe(9);
    expect(percentile(sorted, 99)).toBe(10);
    expect(percentile(sorted, 0)).toBe(1);
  });

  it('summarises unsorted samples', () => {
    expect(summarize([30, 10, 20])).toMatchObject({ count: 3, min: 10, median: 20, max: 30 });
  });
});

describe('bundle composition', () => {
  it('groups the output by package, largest first, and names a dominant sub-folder', () => {
    // Arrange
    const output = {
      bytes: 0,
      imports: [],
      exports: [],
      entryPoint: 'functions/http/x.ts',
      inputs: {
        'node_modules/zod/v4/locales/he.js': { bytesInOutput: 600 },
        'node_modules/zod/v4/core/schemas.js': { bytesInOutput: 200 },
        'node_modules/@smithy/core/dist-es/index.js': { bytesInOutput: 100 },
        'functions/http/x.ts': { bytesInOutput: 100 },
      },
    } as unknown as Metafile['outputs'][string];
    // Act
    const shares = composition(output);
    // Assess
    expect(shares.map((s) => s.name)).toEqual(['zod', '@smithy/core', '(project)']);
    expect(shares[0]).toMatchObject({ percent: 80, largestFolder: { folder: 'v4/locales' } });
    expect(shares[1]?.largestFolder).toBeUndefined();
  });
});

describe('transaction index writes', () => {
  it('counts one entry for a Put carrying an index key and two for an Update moving one', () => {
    expect(indexWrites({ Put: { Item: { pk: 'a', sk: 'b', gsi1pk: 'g', gsi1sk: 's' } } })).toBe(1);
    expect(indexWrites({ Put: { Item: { pk: 'a', sk: 'b' } } })).toBe(0);
    expect(
      indexWrites({
        Update: {
          UpdateExpression: 'SET #a = :a, #b = :b',
          ExpressionAttributeNames: { '#a': 'title', '#b': 'gsi1sk' },
        },
      }),
    ).toBe(2);
    expect(
      indexWrites({
        Update: { UpdateExpression: 'SET #a = :a', ExpressionAttributeNames: { '#a': 'title' } },
      }),
    ).toBe(0);
  });
});

describe('the leads bench population', () => {
  const options = {
    tenantId: 'tenant-1',
    count: 5000,
    agentIds: ['a1', 'a2', 'a3', 'a4', 'a5'],
    now: new Date(),
  };
  const leads = Array.from({ length: options.count }, (_, i) => leadAt(i, options));

  it('is the same on every run', () => {
    expect(leadAt(42, options)).toEqual(leads[42]);
    expect(uuidOf(20_000, 42)).toBe(leads[42]?.id);
  });

  it('gives every Lead its own UUID, email and E.164 phone, and a way to reach it', () => {
    const ids = new Set(leads.map((l) => l.id));
    const emails = leads.flatMap((l) => (l.email ? [l.email] : []));
    const phones = leads.flatMap((l) => (l.phone ? [l.phone] : []));
    expect(ids.size).toBe(leads.length);
    expect(
      [...ids].every((id) => /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-8[0-9a-f]{3}-[0-9a-f]{12}$/.test(id)),
    ).toBe(true);
    expect(new Set(emails).size).toBe(emails.length);
    expect(emails.every((e) => /^[a-z0-9.]+@[a-z.]+$/.test(e))).toBe(true);
    expect(new Set(phones).size).toBe(phones.length);
    expect(phones.every((p) => normalizePhone(p, 'ES') === p)).toBe(true);
    expect(leads.every((l) => l.email || l.phone)).toBe(true);
  });

  it('orders Leads by index and keeps derived values consistent', () => {
    expect(leads.every((l, i) => i === 0 || (leads[i - 1]?.updatedAt ?? '') < l.updatedAt)).toBe(true);
    expect(leads.every((l) => l.createdAt <= l.updatedAt)).toBe(true);
    expect(leads.every((l) => l.ownerKey === (l.assignedAgentId ?? 'unassigned'))).toBe(true);
    expect(leads.every((l) => l.tierKey === (l.score === undefined ? 'unscored' : tierOf(l.score)))).toBe(
      true,
    );
  });

  it('spreads statuses, owners and tiers, with accents, notes and archived Leads', () => {
    // Act
    const p = describePopulation(leads);
    // Assess
    for (const status of Object.keys(p.byStatus)) expect(p.byStatus[status]).toBeGreaterThan(250);
    expect(Object.keys(p.byOwner)).toHaveLength(6);
    expect((p.byOwner.unassigned ?? 0) / p.count).toBeCloseTo(0.15, 1);
    expect(Object.keys(p.byTier).sort()).toEqual(['cold', 'hot', 'moderate', 'unscored', 'warm']);
    expect(p.archived).toBeGreaterThan(50);
    expect(p.withNotes).toBeGreaterThan(250);
    expect(leads.some((l) => (l.notes?.length ?? 0) > 500)).toBe(true);
    expect(
      leads.filter(
        (l) => l.name !== l.name.normalize('NFKD').replace(/[\u0300-\u036f]/g, '') || /[łøßŁØ]/.test(l.name),
      ).length / p.count,
    ).toBeGreaterThan(0.3);
    expect(leads.filter((l) => l.name.includes(RARE_SURNAMES.rare))).toHaveLength(2);
    expect(leads.filter((l) => l.name.includes(RARE_SURNAMES.rareBehindCommonPrefix))).toHaveLength(2);
  });

  it('folds names to ASCII for email local parts', () => {
    expect(asciiWord('Łukasz')).toBe('lukasz');
    expect(asciiWord('Søren')).toBe('soren');
    expect(asciiWord("O'Brien")).toBe('obrien');
    expect(asciiWord('Weiß')).toBe('weiss');
  });
});

describe('DynamoDB item size', () => {
  it('counts names and values by the billing rules', () => {
    // pk 2+2, n 1+(3+1), b 1+1, l 1+3+(1+1), m 1+3+(1+1+1) = 24; ü is 2 bytes
    expect(itemSize({ pk: 'ab', n: 12345, b: true, l: ['x'], m: { k: 'v' } })).toBe(24);
    expect(itemSize({ s: 'ü' })).toBe(3);
  });
});
