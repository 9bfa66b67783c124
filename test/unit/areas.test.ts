import { describe, expect, it } from 'vitest';
import { type AreaRule, type AreaVia, planMemberships, ruleCovers } from '../../functions/domain/areas.ts';

const coast: AreaRule = { id: 'coast', kind: 'region', placeCodes: ['ES-MA'] };
const town: AreaRule = { id: 'town', kind: 'zone', placeCodes: ['ES-MA-MAR', 'ES-MA-EST'] };
const club: AreaRule = { id: 'club', kind: 'community', placeCodes: ['ES-MA'] };
const inMarbella = ['ES', 'ES-MA', 'ES-MA-MAR'];
const inMadrid = ['ES', 'ES-M', 'ES-M-MAD'];

describe('ruleCovers', () => {
  it('covers a listing whose Place or one of its ancestors is in the rule', () => {
    expect(ruleCovers(coast, inMarbella)).toBe(true);
    expect(ruleCovers(town, inMarbella)).toBe(true);
    expect(ruleCovers(coast, inMadrid)).toBe(false);
    expect(ruleCovers(coast, [])).toBe(false);
  });

  it('never covers anything for a community (manual membership only)', () => {
    expect(ruleCovers(club, inMarbella)).toBe(false);
  });
});

describe('planMemberships', () => {
  it('adds the Areas whose rule covers the Place and removes rule memberships that no longer apply', () => {
    // Act
    const moved = planMemberships([coast, town], inMadrid, new Map<string, AreaVia>([['coast', 'rule']]));
    const placed = planMemberships([coast, town, club], inMarbella, new Map());
    // Assess
    expect(moved).toEqual({ add: [], remove: ['coast'] });
    expect(placed).toEqual({ add: ['coast', 'town'], remove: [] });
  });

  it('never re-adds an excluded listing nor removes a manual one', () => {
    // Act
    const plan = planMemberships(
      [coast, town, club],
      inMadrid,
      new Map<string, AreaVia>([
        ['coast', 'manual'],
        ['club', 'manual'],
      ]),
    );
    const excluded = planMemberships(
      [coast, town],
      inMarbella,
      new Map<string, AreaVia>([['coast', 'excluded']]),
    );
    // Assess
    expect(plan).toEqual({ add: [], remove: [] });
    expect(excluded).toEqual({ add: ['town'], remove: [] });
  });

  it('keeps a rule membership that still applies and drops one whose Area is gone', () => {
    // Act
    const plan = planMemberships(
      [coast],
      inMarbella,
      new Map<string, AreaVia>([
        ['coast', 'rule'],
        ['deleted', 'rule'],
        ['gone-manual', 'manual'],
      ]),
    );
    // Assess
    expect(plan).toEqual({ add: [], remove: ['deleted'] });
  });
});
