import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import * as z from 'zod/mini';
import { ActivityCreate } from '../../functions/contract/activities.ts';
import { LeadCriteriaIn } from '../../functions/contract/lead-criteria.ts';
import { EmailAddress, LeadIngestIn, PhoneText } from '../../functions/contract/leads.ts';
import { trimmedText } from '../../functions/contract/shared.ts';
import { checkNewActivity } from '../../functions/domain/activities.ts';

/** The document's verdict on a value: the schema zod generates for the request, through Ajv. */
function documentAccepts(schema: z.ZodMiniType, value: unknown): boolean {
  const json = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' });
  return new Ajv2020({ strict: false }).validate(json, value) as boolean;
}

/** The API's verdict: the same zod schema, as validate-input runs it. */
function apiAccepts(schema: z.ZodMiniType, value: unknown): boolean {
  return schema.safeParse(value).success;
}

const ingest = (person: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  source: 'web',
  type: 'inquiry',
  person: { name: 'Ana', ...person },
  ...extra,
});

describe('the document states what the API enforces on a field', () => {
  it.each([
    ['an email with surrounding spaces', EmailAddress, '  ana@example.com \n'],
    ['an email of 320 characters', EmailAddress, `${'a'.repeat(308)}@example.com`],
    ['an email of 321 characters', EmailAddress, `${'a'.repeat(309)}@example.com`],
    ['an email with inner space', EmailAddress, 'ana maria@example.com'],
    ['a blank email', EmailAddress, '   '],
    ['a phone with spaces around', PhoneText, '  +34 600 123 456  '],
    ['a phone of 50 characters', PhoneText, `  ${'1'.repeat(50)} `],
    ['a phone of 51 characters', PhoneText, '1'.repeat(51)],
    ['a phone with letters', PhoneText, '600-CALL-NOW'],
    ['a blank phone', PhoneText, '  '],
    ['a name padded with spaces', trimmedText(5), '   abcde   '],
    ['a name too long once trimmed', trimmedText(5), ' abcdef '],
    ['a blank name', trimmedText(5), ' \t '],
    ['ingest with only a phone', LeadIngestIn, ingest({ phone: '600123456' })],
    ['ingest with neither email nor phone', LeadIngestIn, ingest({ email: null })],
    [
      'ingest with agent_id and agent_email',
      LeadIngestIn,
      ingest(
        { email: 'a@b.co' },
        { agent_id: '0f8fad5b-d9cb-469f-a165-70867728950e', agent_email: 'x@y.co' },
      ),
    ],
    ['criteria with a price and no currency', LeadCriteriaIn, { min_price: 100 }],
    ['criteria with a price and a currency', LeadCriteriaIn, { max_price: '100.00', currency: 'eur' }],
    ['criteria with a null price and no currency', LeadCriteriaIn, { min_price: null }],
    [
      'a visit with due_at',
      ActivityCreate,
      { kind: 'visit', title: 'See it', due_at: '2026-01-01T10:00:00Z' },
    ],
    ['a note without due_at', ActivityCreate, { kind: 'note', title: ' Called back ' }],
  ])('%s: the document and the API agree', (_case, schema, value) => {
    expect(documentAccepts(schema, value)).toBe(apiAccepts(schema, value));
  });

  it('refuses a visit without due_at, as the activity rule does after validation', () => {
    const visit = { kind: 'visit', title: 'See the flat' } as const;
    expect(documentAccepts(ActivityCreate, visit)).toBe(false);
    expect(checkNewActivity({ kind: visit.kind })).toMatchObject({ field: 'due_at' });
  });
});
