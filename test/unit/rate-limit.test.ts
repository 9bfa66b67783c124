import { describe, expect, it } from 'vitest';
import { type Budget, judge, windowStart } from '../../functions/domain/rate-limit.ts';

const key = (used: number, quota = 600): Budget => ({ name: 'key-minute', quota, windowSeconds: 60, used });
const tenant = (used: number, quota = 3): Budget => ({
  name: 'tenant-minute',
  quota,
  windowSeconds: 60,
  used,
});

/** 12:00:15 UTC on some day: 45 s left in the minute window. */
const NOW = 1_700_000_040 + 15;

describe('windowStart', () => {
  it('aligns to the window', () => {
    expect(windowStart(1_700_000_040, 60)).toBe(1_700_000_040);
    expect(windowStart(1_700_000_040 + 59.9, 60)).toBe(1_700_000_040);
    expect(windowStart(1_700_000_040 + 60, 60)).toBe(1_700_000_100);
  });
});

describe('judge', () => {
  it('allows while every budget has room, without Retry-After', () => {
    // Act
    const verdict = judge([key(1), tenant(1)], NOW);
    // Assess
    expect(verdict.allowed).toBe(true);
    expect(verdict.headers['Retry-After']).toBeUndefined();
    expect(verdict.headers).toEqual({
      'RateLimit-Policy': 'key-minute;q=600;w=60, tenant-minute;q=3;w=60',
      RateLimit: 'tenant-minute;r=2;t=45',
      'X-RateLimit-Limit': '3',
      'X-RateLimit-Remaining': '2',
      'X-RateLimit-Reset': '45',
    });
  });

  it('allows the request that uses the last unit of the budget', () => {
    const verdict = judge([key(3), tenant(3)], NOW);
    expect(verdict.allowed).toBe(true);
    expect(verdict.headers['X-RateLimit-Remaining']).toBe('0');
    expect(verdict.headers['Retry-After']).toBeUndefined();
  });

  it('refuses once a budget is over, with Retry-After in whole seconds', () => {
    // Act
    const verdict = judge([key(4), tenant(4)], NOW + 0.7);
    // Assess
    expect(verdict.allowed).toBe(false);
    expect(verdict.headers['Retry-After']).toBe('45');
    expect(verdict.headers.RateLimit).toBe('tenant-minute;r=0;t=45');
    expect(verdict.headers['X-RateLimit-Limit']).toBe('3');
    expect(verdict.headers['X-RateLimit-Remaining']).toBe('0');
  });

  it('describes the tightest budget, whichever position it has', () => {
    const keyTight = judge([key(9, 10), tenant(5, 100)], NOW);
    expect(keyTight.headers.RateLimit).toBe('key-minute;r=1;t=45');
    expect(keyTight.headers['X-RateLimit-Limit']).toBe('10');
    const tenantTight = judge([key(1, 10), tenant(95, 100)], NOW);
    expect(tenantTight.headers.RateLimit).toBe('tenant-minute;r=5;t=45');
  });

  it('the key budget alone can refuse', () => {
    const verdict = judge([key(11, 10), tenant(11, 1000)], NOW);
    expect(verdict.allowed).toBe(false);
    expect(verdict.headers.RateLimit).toMatch(/^key-minute;r=0;t=\d+$/);
    expect(verdict.headers['Retry-After']).toBe('45');
  });

  it('Retry-After waits for the longest blocking window', () => {
    const verdict = judge(
      [
        { name: 'minute', quota: 1, windowSeconds: 60, used: 2 },
        { name: 'hour', quota: 1, windowSeconds: 3600, used: 2 },
      ],
      3600 * 10 + 30,
    );
    expect(verdict.allowed).toBe(false);
    expect(verdict.headers['Retry-After']).toBe(String(3600 - 30));
  });

  it('never says reset in 0 seconds', () => {
    const verdict = judge([tenant(4)], 1_700_000_040 + 59.999);
    expect(Number(verdict.headers['X-RateLimit-Reset'])).toBeGreaterThanOrEqual(1);
    expect(Number(verdict.headers['Retry-After'])).toBeGreaterThanOrEqual(1);
  });

  it('never reports a negative remaining', () => {
    expect(judge([tenant(50)], NOW).headers['X-RateLimit-Remaining']).toBe('0');
  });
});
