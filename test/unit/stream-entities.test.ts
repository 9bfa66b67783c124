import { describe, expect, it } from 'vitest';
import { isStreamIgnored, TTL_DELETE_PRINCIPAL } from '../../functions/data/stream-entities.ts';

/** The consumer's own skip, where no event source filter runs (the local stream poller). */
describe('isStreamIgnored', () => {
  const ttlExpiry = { eventName: 'REMOVE', userIdentity: { principalId: TTL_DELETE_PRINCIPAL } };

  it("skips a TTL expiry of an event, and of any other entity's item", () => {
    // Act + Assess
    expect(isStreamIgnored('event', ttlExpiry)).toBe(true);
    expect(isStreamIgnored('webhookDelivery', ttlExpiry)).toBe(true);
    expect(isStreamIgnored(undefined, ttlExpiry)).toBe(true);
  });

  it('reads an event written or removed by the service', () => {
    // Act + Assess
    expect(isStreamIgnored('event', { eventName: 'INSERT' })).toBe(false);
    expect(isStreamIgnored('event', { eventName: 'REMOVE' })).toBe(false);
    expect(
      isStreamIgnored('lead', { eventName: 'REMOVE', userIdentity: { principalId: 'someone-else' } }),
    ).toBe(false);
  });

  it('skips every change of a bookkeeping entity', () => {
    // Act + Assess
    expect(isStreamIgnored('rateLimitWindow', { eventName: 'MODIFY' })).toBe(true);
    expect(isStreamIgnored('idempotencyRecord')).toBe(true);
    expect(isStreamIgnored('lead')).toBe(false);
  });
});
