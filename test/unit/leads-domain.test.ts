import { describe, expect, it } from 'vitest';
import {
  MAX_SEARCH_PREFIXES,
  searchIndexOf,
  searchKeysOf,
  searchPlan,
  tokensOf,
  tokenWrites,
} from '../../functions/data/lead-search.ts';
import type { LeadRecord } from '../../functions/data/leads.ts';
import { withDerivedKeys } from '../../functions/data/leads.ts';
import { appendNotes, mergeContact } from '../../functions/domain/lead-contact.ts';
import {
  allowedMoves,
  BACKFILL_THRESHOLD_DAYS,
  canMove,
  isBackfill,
  LEAD_STATUSES,
  normalizeEmail,
  normalizePhone,
  queryWords,
  searchPrefixes,
  searchWords,
  tierOf,
} from '../../functions/domain/leads.ts';

function lead(fields: Partial<LeadRecord> = {}): LeadRecord {
  return {
    tenantId: 't1',
    id: 'lead-1',
    name: 'Ana Pérez',
    status: 'new',
    source: 'manual',
    ownerKey: 'unassigned',
    tierKey: 'unscored',
    isActive: true,
    createdAt: '2026-01-01T00:00:00.000Z',
    updatedAt: '2026-01-01T00:00:00.000Z',
    ...fields,
  };
}

describe('the pipeline state machine', () => {
  it('moves forward, skipping steps, toward closed_won or closed_lost', () => {
    expect(canMove('new', 'contacted')).toBe(true);
    expect(canMove('new', 'negotiating')).toBe(true);
    expect(canMove('contacted', 'qualified')).toBe(true);
    expect(canMove('qualified', 'closed_won')).toBe(true);
    expect(canMove('negotiating', 'closed_lost')).toBe(true);
  });

  it('refuses moves backward and a win that was never qualified', () => {
    expect(canMove('contacted', 'new')).toBe(false);
    expect(canMove('negotiating', 'qualified')).toBe(false);
    expect(canMove('new', 'closed_won')).toBe(false);
    expect(canMove('contacted', 'closed_won')).toBe(false);
    expect(canMove('closed_won', 'closed_lost')).toBe(false);
  });

  it('reopens a closed Lead only as contacted, and always allows staying put', () => {
    expect(allowedMoves('closed_won')).toEqual(['contacted']);
    expect(allowedMoves('closed_lost')).toEqual(['contacted']);
    for (const status of LEAD_STATUSES) expect(canMove(status, status)).toBe(true);
  });

  it('lists the allowed moves of every status (what a 422 names)', () => {
    expect(allowedMoves('new')).toEqual(['contacted', 'qualified', 'negotiating', 'closed_lost']);
    expect(allowedMoves('negotiating')).toEqual(['closed_won', 'closed_lost']);
  });
});

describe('tiers', () => {
  it('follows the tier thresholds (80, 60, 40) at their edges', () => {
    expect([100, 80, 79, 60, 59, 40, 39, 0].map(tierOf)).toEqual([
      'hot',
      'hot',
      'warm',
      'warm',
      'moderate',
      'moderate',
      'cold',
      'cold',
    ]);
  });
});

describe('contact normalisation', () => {
  it('compares emails trimmed and lowercased', () => {
    expect(normalizeEmail('  Ana.Perez@Example.COM ')).toBe('ana.perez@example.com');
  });

  it("turns national numbers into E.164 with the Tenant's country", () => {
    expect(normalizePhone('600 123 456', 'ES')).toBe('+34600123456');
    expect(normalizePhone('07700 900123', 'GB')).toBe('+447700900123');
    expect(normalizePhone('(555) 010-9999', 'US')).toBe('+15550109999');
  });

  it('keeps international numbers, with + or 00, whatever the country', () => {
    expect(normalizePhone('+34 600-123-456', 'GB')).toBe('+34600123456');
    expect(normalizePhone('0034 600 123 456', 'US')).toBe('+34600123456');
  });

  it('refuses what cannot be a number', () => {
    expect(normalizePhone('12', 'ES')).toBeUndefined();
    expect(normalizePhone('phone', 'ES')).toBeUndefined();
    expect(normalizePhone('+1234567890123456', 'ES')).toBeUndefined();
  });
});

describe('backfill', () => {
  const now = new Date('2026-03-10T12:00:00Z');
  const daysAgo = (d: number, extraMs = 0) => new Date(now.getTime() - d * 86_400_000 - extraMs);

  it(`is an event older than ${BACKFILL_THRESHOLD_DAYS} days`, () => {
    expect(isBackfill(daysAgo(BACKFILL_THRESHOLD_DAYS, 1), now)).toBe(true);
    expect(isBackfill(daysAgo(30), now)).toBe(true);
  });

  it('is not a recent one, nor one exactly at the threshold', () => {
    expect(isBackfill(daysAgo(BACKFILL_THRESHOLD_DAYS), now)).toBe(false);
    expect(isBackfill(daysAgo(1), now)).toBe(false);
    expect(isBackfill(now, now)).toBe(false);
  });
});

describe('search words', () => {
  it('folds case and accents and splits an email into its parts', () => {
    const words = searchWords(['José Ñúñez', 'Jose.Nunez@Correo.es', '+34600123456']);
    expect(words).toEqual(
      expect.arrayContaining(['jose', 'nunez', 'jose.nunez@correo.es', 'correo', 'es', '34600123456']),
    );
    expect(words).not.toContain('José');
  });

  it('files each word under its 3-, 4- and 6-letter prefixes, a digit word under 6 digits only', () => {
    expect(searchPrefixes(['marchetti', 'maria', 'al', '34600123456', '3460'])).toEqual([
      'mar',
      'marc',
      'marche',
      'mari',
      '346001',
    ]);
  });

  it('folds a query like the index, leaving out one-letter words', () => {
    expect(queryWords('  GARCÍA m ')).toEqual(['garcia']);
  });

  it('searches the partition of the longest query word', () => {
    expect(searchPlan('ana garcía')).toEqual({ words: ['ana', 'garcia'], prefix: 'garcia' });
    expect(searchPlan('marchetti')).toEqual({ words: ['marchetti'], prefix: 'marche' });
    expect(searchPlan('marti')).toEqual({ words: ['marti'], prefix: 'mart' });
    expect(searchPlan('mar')).toEqual({ words: ['mar'], prefix: 'mar' });
    expect(searchPlan('a b')).toBeUndefined();
  });

  it('has no token partition for a word shorter than its prefixes (a 2-letter word, a country code)', () => {
    expect(searchPlan('jo')).toEqual({ words: ['jo'], prefix: undefined });
    expect(searchPlan('34')).toEqual({ words: ['34'], prefix: undefined });
    expect(searchPlan('34600')).toEqual({ words: ['34600'], prefix: undefined });
    expect(searchPlan('34600123')).toEqual({ words: ['34600123'], prefix: '346001' });
    expect(searchPlan('jo garcia')).toEqual({ words: ['jo', 'garcia'], prefix: 'garcia' });
  });

  it(`caps a Lead at ${MAX_SEARCH_PREFIXES} prefixes, name and contact first`, () => {
    const notes = Array.from({ length: 60 }, (_, i) => `w${String.fromCharCode(97 + (i % 26))}${i}x`).join(
      ' ',
    );
    const { prefixes } = searchIndexOf({ name: 'Zoe Quinn', email: 'zq@example.com', notes });
    expect(prefixes.length).toBe(MAX_SEARCH_PREFIXES);
    expect(prefixes.slice(0, 5)).toEqual(['zoe', 'qui', 'quin', 'zq@', 'zq@e']);
  });
});

describe('search tokens', () => {
  it('holds keys and the searched words only, one item per prefix, in creation order', () => {
    // Prepare
    const stored = withDerivedKeys(lead({ email: 'ana@example.com', assignedAgentId: 'agent-1' }));
    // Act
    const tokens = tokensOf(stored);
    // Assess
    expect(tokens.map((t) => t.prefix).sort()).toEqual([...searchKeysOf(stored)].sort());
    expect(tokens[0]).toEqual({
      tenantId: 't1',
      listKey: 'leads',
      prefix: 'ana',
      leadId: 'lead-1',
      createdAt: stored.createdAt,
      text: ' ana perez ana@example.com example com',
    });
  });

  it('are not rewritten by a status, score or owner change', () => {
    // Prepare
    const before = withDerivedKeys(lead({ notes: 'wants a villa' }));
    const after = withDerivedKeys({
      ...before,
      status: 'contacted',
      score: 80,
      scoreTier: 'hot',
      assignedAgentId: 'agent-2',
      updatedAt: '2026-01-02T00:00:00.000Z',
    });
    // Act
    const writes = tokenWrites(before, after);
    // Assess
    expect(writes).toEqual({ legacyDeletes: [], deletes: [], puts: [] });
  });

  it('are rewritten when a searched field changes: gone prefixes deleted, every current one put', () => {
    // Prepare
    const before = withDerivedKeys(lead({ name: 'Ana Pérez' }));
    const after = withDerivedKeys({ ...before, name: 'Ana Lopez' });
    // Act
    const writes = tokenWrites(before, after);
    // Assess
    expect(writes.deletes.map((d) => d.prefix).sort()).toEqual(['per', 'pere']);
    expect(writes.puts.map((p) => p.prefix).sort()).toEqual([...searchKeysOf(after)].sort());
    expect(writes.puts.every((p) => p.text === ' ana lopez')).toBe(true);
  });

  it('move to the archived partitions with the Lead, and legacy tokens are deleted on the next write', () => {
    // Prepare
    const legacy = { ...lead({ name: 'Ana Pérez' }), searchPrefixes: ['an', 'ana'] };
    const live = withDerivedKeys({ ...legacy, updatedAt: '2026-01-02T00:00:00.000Z' });
    const archived = withDerivedKeys({ ...live, isActive: false, updatedAt: '2026-01-03T00:00:00.000Z' });
    // Act
    const first = tokenWrites(legacy, live);
    const archiving = tokenWrites(live, archived);
    // Assess
    expect(live.searchPrefixes).toBeUndefined();
    expect(first.legacyDeletes).toEqual([
      { tenantId: 't1', prefix: 'an', updatedAt: legacy.updatedAt, leadId: 'lead-1' },
      { tenantId: 't1', prefix: 'ana', updatedAt: legacy.updatedAt, leadId: 'lead-1' },
    ]);
    expect(first.puts.map((p) => p.listKey)).toEqual(first.puts.map(() => 'leads'));
    expect(archived.listKey).toBe('archived-leads');
    expect(archiving.deletes.map((d) => `${d.listKey}:${d.prefix}`).sort()).toEqual(
      searchKeysOf(live)
        .map((p) => `leads:${p}`)
        .sort(),
    );
    expect(archiving.puts.map((p) => p.listKey)).toEqual(archiving.puts.map(() => 'archived-leads'));
  });

  it('derives the index values from the fields they index', () => {
    const scored = withDerivedKeys(lead({ scoreTier: 'hot', assignedAgentId: 'a', ownerKey: 'stale' }));
    expect(scored).toMatchObject({ ownerKey: 'a', tierKey: 'hot' });
    expect(withDerivedKeys(lead({ ownerKey: 'a', tierKey: 'warm' }))).toMatchObject({
      ownerKey: 'unassigned',
      tierKey: 'unscored',
    });
  });
});

describe('dedupe merge', () => {
  it('fills what the Lead lacks and claims the new email or phone', () => {
    // Act
    const { next, claims, changed } = mergeContact(
      lead({ phone: '+34600123456' }),
      { name: 'Someone Else', email: 'ana@example.com', phone: '+34699999999', locale: 'es' },
      { email: false, phone: false },
      { campaign: 'spring' },
    );
    // Assess
    expect(changed).toBe(true);
    expect(next).toMatchObject({
      name: 'Ana Pérez',
      email: 'ana@example.com',
      phone: '+34600123456',
      locale: 'es',
      campaign: 'spring',
    });
    expect(claims).toEqual([{ kind: 'lead-email', value: 'ana@example.com' }]);
  });

  it('does not take an email another Lead holds', () => {
    const { next, claims } = mergeContact(
      lead({ phone: '+34600123456' }),
      { name: 'Ana', email: 'taken@example.com' },
      { email: true, phone: false },
    );
    expect(next.email).toBeUndefined();
    expect(claims).toEqual([]);
  });

  it('appends notes once, and changes nothing when there is nothing new', () => {
    expect(appendNotes('first', 'second')).toBe('first\n\nsecond');
    expect(appendNotes('first\n\nsecond', 'second')).toBe('first\n\nsecond');
    expect(appendNotes(undefined, '  hi ')).toBe('hi');
    expect(appendNotes('kept', '   ')).toBe('kept');
    const same = mergeContact(
      lead({ email: 'ana@example.com', notes: 'hi' }),
      { name: 'Ana', notes: 'hi' },
      {
        email: false,
        phone: false,
      },
    );
    expect(same.changed).toBe(false);
  });
});
