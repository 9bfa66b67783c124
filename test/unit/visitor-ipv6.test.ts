/**
 * The buckets an IPv6 visitor's site budgets count: its /64 (one home or phone) and its /48 (the
 * site a provider delegates, holding every /56 or /64 a household or office steps through), so that
 * addresses from many /64s of one network cannot together spend the Tenant's site budget. IPv4
 * counts per address, with no network bucket.
 */
import { describe, expect, it } from 'vitest';
import { siteVisitor } from '../../functions/domain/visitor.ts';

describe('siteVisitor', () => {
  it('counts an IPv6 address by its /64 and its /48', () => {
    expect(siteVisitor('2001:db8:aa:1101:1234:5678:9abc:def0')).toEqual({
      visitor: '2001:db8:aa:1101::/64',
      network: '2001:db8:aa::/48',
    });
  });

  it('puts every /64 of one /56 in one /48 bucket, and other /48s in theirs', () => {
    // Arrange: 40 /64s of one household's /56, the way a cache-busting client would step through them.
    const household = Array.from(
      { length: 40 },
      (_, i) => `2001:db8:aa:11${i.toString(16).padStart(2, '0')}::7`,
    );
    // Act
    const buckets = household.map(siteVisitor);
    // Assess
    expect(new Set(buckets.map((b) => b?.visitor)).size).toBe(40);
    expect(new Set(buckets.map((b) => b?.network))).toEqual(new Set(['2001:db8:aa::/48']));
    expect(siteVisitor('2001:db8:ab:1100::7')?.network).toBe('2001:db8:ab::/48');
  });

  it('writes one bucket for every spelling of an address (zeros compressed or not, upper case)', () => {
    const spellings = ['2001:0db8:0000:0000:0000:0000:0000:0001', '2001:DB8::1', '2001:db8:0:0::1'];
    const buckets = spellings.map(siteVisitor);
    expect(new Set(buckets.map((b) => JSON.stringify(b))).size).toBe(1);
    expect(buckets[0]).toEqual({ visitor: '2001:db8::/64', network: '2001:db8::/48' });
  });

  it('counts IPv4 (and IPv4-mapped IPv6) per address, with no network bucket', () => {
    expect(siteVisitor('203.0.113.7')).toEqual({ visitor: '203.0.113.7' });
    expect(siteVisitor('::ffff:203.0.113.7')).toEqual({ visitor: '203.0.113.7' });
  });

  it('answers undefined for what is not an address', () => {
    expect(siteVisitor('not an ip')).toBeUndefined();
    expect(siteVisitor('')).toBeUndefined();
    expect(siteVisitor('2001:db8::/48')).toBeUndefined();
  });
});
