import { describe, expect, it } from 'vitest';
import {
  compareDecimals,
  DECIMAL_PATTERN,
  fractionDigits,
  integerDigits,
  isNegativeDecimal,
  normalizeDecimal,
} from '../../functions/domain/decimal.ts';

describe('DECIMAL_PATTERN (the decimal strings of docs/getting-started.md)', () => {
  it.each(['0', '1', '100.50', '+0100.50', '-1', '-0.5', '.5', '5.', '007', '+.5', '250000.00'])(
    'accepts %j',
    (value) => {
      // Act / Assess
      expect(DECIMAL_PATTERN.test(value)).toBe(true);
    },
  );

  it.each([
    '',
    '+',
    '-',
    '.',
    '+.',
    '-.',
    '+-',
    'abc',
    '1e5',
    '1,5',
    '1.2.3',
    ' 1',
    '1 ',
    '--1',
    '1-',
    '0x10',
    'NaN',
    'Infinity',
  ])('rejects %j', (value) => {
    expect(DECIMAL_PATTERN.test(value)).toBe(false);
  });
});

describe('normalizeDecimal', () => {
  it.each([
    ['+0100.50', '100.50'],
    ['100.50', '100.50'],
    ['007', '7'],
    ['0', '0'],
    ['000', '0'],
    ['.5', '0.5'],
    ['-.5', '-0.5'],
    ['5.', '5'],
    ['-0', '0'],
    ['-0.00', '0.00'],
    ['+0', '0'],
    ['-0012.30', '-12.30'],
    ['250000.00', '250000.00'],
  ])('%j → %j', (input, expected) => {
    expect(normalizeDecimal(input)).toBe(expected);
  });

  it('keeps trailing fraction zeros (scale is meaningful for money)', () => {
    expect(normalizeDecimal('1.10')).toBe('1.10');
  });

  it('is idempotent', () => {
    for (const value of ['+0100.50', '.5', '-0.00', '007', '-12.3']) {
      const once = normalizeDecimal(value);
      expect(normalizeDecimal(once)).toBe(once);
    }
  });
});

describe('sign and digit counts', () => {
  it('tells negatives apart, minus zero is not negative', () => {
    expect(isNegativeDecimal('-1')).toBe(true);
    expect(isNegativeDecimal('-0.01')).toBe(true);
    expect(isNegativeDecimal('-0')).toBe(false);
    expect(isNegativeDecimal('-0.00')).toBe(false);
    expect(isNegativeDecimal('+1')).toBe(false);
  });

  it('counts digits on the normalised value', () => {
    expect(integerDigits('+000123.4')).toBe(3);
    expect(integerDigits('-12')).toBe(2);
    expect(integerDigits('.5')).toBe(1);
    expect(fractionDigits('1.250')).toBe(3);
    expect(fractionDigits('1.')).toBe(0);
    expect(fractionDigits('7')).toBe(0);
  });
});

describe('compareDecimals', () => {
  it.each([
    ['1', '2', -1],
    ['2', '1', 1],
    ['1.5', '1.50', 0],
    ['+0100.50', '100.5', 0],
    ['10', '9', 1],
    ['9.99', '10', -1],
    ['0.5', '0.25', 1],
    ['.5', '0.50', 0],
    ['-1', '1', -1],
    ['1', '-1', 1],
    ['-1', '-2', 1],
    ['-2.5', '-2.25', -1],
    ['-0', '0', 0],
    ['0.00', '0', 0],
    ['123456789012345.67', '123456789012345.66', 1],
    ['0.1', '0.09999999999999999999', 1],
  ])('compare(%j, %j) = %i', (a, b, expected) => {
    expect(Math.sign(compareDecimals(a, b))).toBe(expected);
    // antisymmetric
    expect(Math.sign(compareDecimals(b, a))).toBe(-expected || 0);
  });

  it('sorts exactly where binary floats would not', () => {
    // Prepare: these two are the same float64
    const a = '9007199254740993';
    const b = '9007199254740992';
    expect(Number(a)).toBe(Number(b));
    // Act / Assess
    expect(compareDecimals(a, b)).toBeGreaterThan(0);
    expect(['3', '-1', '10.5', '2', '.5', '-0.25'].sort(compareDecimals)).toEqual([
      '-1',
      '-0.25',
      '.5',
      '2',
      '3',
      '10.5',
    ]);
  });
});

describe('the decimal field schema (Money) built on the pattern', () => {
  it('normalises valid strings and refuses the rest', async () => {
    const { Money } = await import('../../functions/contract/shared.ts');
    expect(Money.parse('+0100.50')).toBe('100.50');
    expect(Money.parse(`${'0'.repeat(50)}7.5`)).toBe('7.5');
    for (const bad of ['abc', '-1', '1.234', '99999999999999', '', '1e3']) {
      expect(Money.safeParse(bad).success).toBe(false);
    }
  });

  it('refuses long input in linear time (the pattern alone backtracks cubically on "000…0x")', async () => {
    // Prepare
    const { Money } = await import('../../functions/contract/shared.ts');
    const inputs = [`${'0'.repeat(200_000)}x`, '1'.repeat(200_000), `${'0'.repeat(64)}x`];
    // Act
    const started = performance.now();
    const results = inputs.map((v) => Money.safeParse(v));
    const elapsed = performance.now() - started;
    // Assess
    expect(results.map((r) => r.success)).toEqual([false, false, false]);
    expect(elapsed).toBeLessThan(200);
  });
});
