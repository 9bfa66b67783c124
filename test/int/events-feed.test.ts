import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { putEvent } from '../../functions/data/events.ts';
import { EVENT_RETENTION_SECONDS, formatEventTime, groupOf } from '../../functions/domain/events.ts';
import { config } from '../../functions/kernel/config.ts';
import { listEvents, readEvent } from '../../functions/services/events.ts';

const reader = () => ({ tenantId: randomUUID(), scopes: ['properties:read'] });

/** An event-log item of `type`, created `ageSeconds` ago. */
function eventAged(tenantId: string, ageSeconds: number) {
  const micros = (Date.now() - ageSeconds * 1000) * 1000;
  const id = randomUUID();
  const createdAt = formatEventTime(micros);
  const type = 'property.updated' as const;
  return {
    tenantId,
    id,
    type,
    group: groupOf(type),
    createdAt,
    envelope: JSON.stringify({
      id,
      type,
      version: 1,
      created_at: createdAt,
      tenant: { slug: 't' },
      data: {},
    }),
    ttl: Math.floor(micros / 1_000_000) + EVENT_RETENTION_SECONDS,
  };
}

describe('GET /v1/events lists settled events only', () => {
  it('an event younger than the settle horizon is left for a later read; by id it answers at once', async () => {
    // Prepare
    const who = reader();
    const settled = eventAged(who.tenantId, config().EVENTS_SETTLE_SECONDS + 5);
    const young = eventAged(who.tenantId, 0);
    await putEvent(settled);
    await putEvent(young);
    // Act
    const page = await listEvents(who, { limit: 10 });
    const byId = await readEvent(who, young.id);
    // Assess
    expect(page.data.map((e) => e.id)).toEqual([settled.id]);
    expect(page.next_cursor).toBeNull();
    expect(byId.id).toBe(young.id);
  });

  it('a write that lands late, older than an event already read, is listed in its place: no reader had passed it', async () => {
    // Prepare: the consumer set both times, then the first write was delayed past the second's.
    const who = reader();
    const first = eventAged(who.tenantId, 0.2);
    const second = eventAged(who.tenantId, 0.1);
    await putEvent(second);
    const seenEarly = await listEvents(who, { limit: 10 });
    await putEvent(first);
    await new Promise((r) => setTimeout(r, config().EVENTS_SETTLE_SECONDS * 1000 + 200));
    // Act
    const all = await listEvents(who, { limit: 10 });
    // Assess: nothing was served before it settled, so no reader holds a position past `first`.
    expect(seenEarly.data).toEqual([]);
    expect(all.data.map((e) => e.id)).toEqual([first.id, second.id]);
  });
});
