/** The admin CLI's usage lines (scripts/admin/usage.ts) and its commands are one list. */
import { describe, expect, it } from 'vitest';
import { IMPORT_CONCURRENCY } from '../../functions/services/listing-import.ts';
import { commands } from '../../scripts/admin/commands.ts';
import { COMMAND_USAGE, flagsOf, IMPORT_CONCURRENCY_DEFAULT } from '../../scripts/admin/usage.ts';

describe('admin usage', () => {
  it('has a usage line for every command and a command for every usage line', () => {
    expect(Object.keys(COMMAND_USAGE).sort()).toEqual(Object.keys(commands).sort());
  });

  it('accepts the flags a command shows, and --help', () => {
    expect([...flagsOf('tenant show')].sort()).toEqual(['help', 'tenant']);
    expect(flagsOf('agent create')).toContain('admin');
    expect(flagsOf('tenant update')).toContain('rate-limit-per-minute');
  });

  it("says listing import's real default concurrency", () => {
    expect(IMPORT_CONCURRENCY_DEFAULT).toBe(IMPORT_CONCURRENCY);
  });
});
