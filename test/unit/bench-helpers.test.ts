import type { Metafile } from 'esbuild';
import { describe, expect, it } from 'vitest';
import { composition } from '../../scripts/bench/bundles.ts';
import { indexWrites } from '../../scripts/bench/dynamo-costs.ts';
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
