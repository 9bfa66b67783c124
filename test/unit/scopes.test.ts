import { describe, expect, it } from 'vitest';
import { describeRequirement, grants, isScope, SCOPES, satisfies } from '../../functions/domain/scopes.ts';

describe('scopes', () => {
  it('lists the seven scopes of docs/getting-started.md', () => {
    expect([...SCOPES].sort()).toEqual(
      [
        'activities:read',
        'activities:write',
        'leads:read',
        'leads:write',
        'properties:read',
        'properties:write',
        'webhooks:manage',
      ].sort(),
    );
  });

  it('recognises only known scopes', () => {
    expect(isScope('properties:read')).toBe(true);
    expect(isScope('properties:admin')).toBe(false);
    expect(isScope('PROPERTIES:READ')).toBe(false);
    expect(isScope('')).toBe(false);
  });

  it('grants a held scope', () => {
    for (const scope of SCOPES) expect(grants([scope], scope)).toBe(true);
  });

  it('only properties:write implies its read; leads:write and activities:write read nothing', () => {
    expect(grants(['properties:write'], 'properties:read')).toBe(true);
    expect(grants(['leads:write'], 'leads:read')).toBe(false);
    expect(grants(['activities:write'], 'activities:read')).toBe(false);
  });

  it('read does not imply write, and nothing crosses resources', () => {
    expect(grants(['properties:read'], 'properties:write')).toBe(false);
    expect(grants(['leads:write'], 'properties:read')).toBe(false);
    expect(grants(['properties:write'], 'leads:read')).toBe(false);
    expect(grants(['leads:read'], 'properties:read')).toBe(false);
    expect(grants(['webhooks:manage'], 'leads:write')).toBe(false);
  });

  it('grants nothing for no scopes or unknown scopes', () => {
    expect(grants([], 'properties:read')).toBe(false);
    expect(grants(['properties:*', '*', 'admin', 'properties'], 'properties:read')).toBe(false);
    expect(grants(['properties:write '], 'properties:write')).toBe(false);
  });

  it('an unknown scope next to a good one does not get in the way', () => {
    expect(grants(['bogus', 'properties:read'], 'properties:read')).toBe(true);
  });

  it('a list requirement is met by any one of its scopes, directly or implied, and by nothing else', () => {
    const either = ['properties:read', 'leads:read'] as const;
    expect(satisfies(['properties:read'], either)).toBe(true);
    expect(satisfies(['leads:read'], either)).toBe(true);
    expect(satisfies(['properties:write'], either)).toBe(true);
    expect(satisfies(['leads:write'], either)).toBe(false);
    expect(satisfies(['activities:read', 'webhooks:manage'], either)).toBe(false);
    expect(satisfies([], either)).toBe(false);
    expect(satisfies(['leads:read'], 'leads:read')).toBe(true);
    expect(satisfies(['properties:read'], 'leads:read')).toBe(false);
    expect(describeRequirement(either)).toBe('properties:read or leads:read');
    expect(describeRequirement('leads:read')).toBe('leads:read');
  });
});
