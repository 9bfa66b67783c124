import { describe, expect, it } from 'vitest';
import {
  type ActivityFields,
  checkNewActivity,
  isEmptyChange,
  needsDueAt,
  planActivityUpdate,
  relinkRole,
} from '../../functions/domain/activities.ts';

const NOW = '2030-06-01T12:00:00.000Z';
const DUE = '2030-06-02T09:00:00.000Z';

const openTask: ActivityFields = { kind: 'task', title: 'Send brochure', dueAt: DUE, completed: false };
const doneTask: ActivityFields = { ...openTask, completed: true, completedAt: '2030-05-01T00:00:00.000Z' };
const undatedCall: ActivityFields = { kind: 'call', title: 'Ring back', body: 'after 5pm', completed: false };

/** The change a valid update makes (fails the test if a rule is broken). */
function change(current: ActivityFields, patch: Parameters<typeof planActivityUpdate>[1]) {
  const plan = planActivityUpdate(current, patch, NOW);
  if (!plan.ok) throw new Error(`unexpected rule broken: ${plan.broken.message}`);
  return plan.change;
}

describe('checkNewActivity', () => {
  it('needs due_at for task, visit and meeting only', () => {
    expect(['task', 'visit', 'meeting', 'call', 'note'].filter((k) => needsDueAt(k as never))).toEqual([
      'task',
      'visit',
      'meeting',
    ]);
    for (const kind of ['task', 'visit', 'meeting'] as const) {
      expect(checkNewActivity({ kind })).toMatchObject({ field: 'due_at', type: 'due_at_required' });
      expect(checkNewActivity({ kind, dueAt: null })?.field).toBe('due_at');
      expect(checkNewActivity({ kind, dueAt: DUE })).toBeUndefined();
    }
    expect(checkNewActivity({ kind: 'call' })).toBeUndefined();
    expect(checkNewActivity({ kind: 'note', dueAt: null })).toBeUndefined();
  });
});

describe('planActivityUpdate: completion (docs/activities.md)', () => {
  it('completes an open Activity: completed and completedAt set to now', () => {
    const c = change(openTask, { completed: true });
    expect(c).toEqual({
      set: { completed: true, completedAt: NOW },
      clear: [],
      completedNow: true,
      reopened: false,
    });
  });

  it('reopens a done Activity: completed false, completedAt cleared', () => {
    const c = change(doneTask, { completed: false });
    expect(c).toEqual({
      set: { completed: false },
      clear: ['completedAt'],
      completedNow: false,
      reopened: true,
    });
  });

  it('changes nothing when the state sent is the current one, or completed is null', () => {
    expect(isEmptyChange(change(doneTask, { completed: true }))).toBe(true);
    expect(isEmptyChange(change(openTask, { completed: false }))).toBe(true);
    expect(isEmptyChange(change(doneTask, { completed: null }))).toBe(true);
  });
});

describe('planActivityUpdate: partial edits', () => {
  it('sets present fields, clears nulls, leaves omitted ones and skips unchanged values', () => {
    const c = change(undatedCall, {
      title: 'Ring back soon',
      body: null,
      reminderAt: DUE,
      propertyId: undefined,
      assigneeUserId: null,
      kind: 'call',
    });
    expect(c.set).toEqual({ title: 'Ring back soon', reminderAt: DUE });
    expect(c.clear).toEqual(['body']);
  });

  it('treats kind, title and completed null as not sent (they cannot be cleared)', () => {
    expect(isEmptyChange(change(openTask, { kind: null, title: null, completed: null }))).toBe(true);
  });

  it('refuses a dated kind without due_at, whether kind changes or due_at is cleared', () => {
    expect(planActivityUpdate(undatedCall, { kind: 'meeting' }, NOW)).toMatchObject({
      ok: false,
      broken: { field: 'due_at' },
    });
    expect(planActivityUpdate(openTask, { dueAt: null }, NOW)).toMatchObject({ ok: false });
    expect(planActivityUpdate(undatedCall, { kind: 'visit', dueAt: null }, NOW)).toMatchObject({ ok: false });
  });

  it('accepts a dated kind when due_at comes with it, and clearing due_at when the kind becomes undated', () => {
    expect(change(undatedCall, { kind: 'visit', dueAt: DUE }).set).toEqual({ kind: 'visit', dueAt: DUE });
    const c = change(openTask, { kind: 'note', dueAt: null });
    expect(c.set).toEqual({ kind: 'note' });
    expect(c.clear).toEqual(['dueAt']);
  });
});

describe('relinkRole', () => {
  it('lets a manual link change the role, never an inquiry or a match', () => {
    expect(relinkRole({ role: 'interested' }, { role: 'owner', source: 'manual' })).toBe('owner');
    expect(relinkRole({ role: 'owner' }, { role: 'owner', source: 'manual' })).toBeUndefined();
    expect(relinkRole({ role: 'owner' }, { role: 'interested', source: 'inquiry' })).toBeUndefined();
    expect(relinkRole({ role: 'tenant' }, { role: 'interested', source: 'match' })).toBeUndefined();
  });
});
