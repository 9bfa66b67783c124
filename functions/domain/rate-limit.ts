/** Fixed-window budgets and the RateLimit headers every answer carries (IETF draft form). */
export interface Budget {
  /** Token used in the headers, e.g. "key-minute". */
  name: string;
  quota: number;
  windowSeconds: number;
  used: number;
}

export interface RateLimitVerdict {
  allowed: boolean;
  headers: Record<string, string>;
}

export function windowStart(nowSeconds: number, windowSeconds: number): number {
  return Math.floor(nowSeconds / windowSeconds) * windowSeconds;
}

/**
 * Judges a request against every budget. Headers describe the tightest budget (least remaining);
 * `X-RateLimit-Reset` and `t=` are seconds until the window resets (not an epoch time).
 */
export function judge(budgets: Budget[], nowSeconds: number): RateLimitVerdict {
  const withRemaining = budgets.map((b) => ({
    ...b,
    remaining: Math.max(0, b.quota - b.used),
    reset: Math.max(1, windowStart(nowSeconds, b.windowSeconds) + b.windowSeconds - Math.floor(nowSeconds)),
  }));
  const tightest = withRemaining.reduce((a, b) => (b.remaining < a.remaining ? b : a));
  const allowed = withRemaining.every((b) => b.used <= b.quota);
  const headers: Record<string, string> = {
    'RateLimit-Policy': withRemaining.map((b) => `${b.name};q=${b.quota};w=${b.windowSeconds}`).join(', '),
    RateLimit: `${tightest.name};r=${tightest.remaining};t=${tightest.reset}`,
    'X-RateLimit-Limit': String(tightest.quota),
    'X-RateLimit-Remaining': String(tightest.remaining),
    'X-RateLimit-Reset': String(tightest.reset),
  };
  if (!allowed) {
    const blocking = withRemaining.filter((b) => b.used > b.quota);
    headers['Retry-After'] = String(Math.max(...blocking.map((b) => b.reset)));
  }
  return { allowed, headers };
}
