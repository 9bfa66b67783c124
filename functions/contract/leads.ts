import * as z from 'zod/mini';
import type { LeadRecord } from '../data/leads.ts';
import {
  BUYER_TYPES,
  INGEST_WARNING_CODES,
  LEAD_SOURCES,
  LEAD_STATUSES,
  RECOMMENDED_ACTIONS,
  SCORE_TIERS,
} from '../domain/leads.ts';
import {
  nonEmptyEdit,
  OffsetDateTime,
  PageQuery,
  presentFields,
  QueryBoolean,
  trimmedInputSchema,
  trimmedText,
  Uuid,
} from './shared.ts';

/** Checked first, aborting: the address pattern is not worth running on a long string. */
const MAX_EMAIL = 320;
const EMAIL_PATTERN = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** An email address, at most 320 characters; compared and stored trimmed and lowercased. */
export const EmailAddress = z.pipe(
  z.string().check(
    z.trim(),
    z.refine((v) => v.length <= MAX_EMAIL, { message: `At most ${MAX_EMAIL} characters`, abort: true }),
    z.regex(EMAIL_PATTERN, 'Must be an email address such as ana@example.com'),
    // The same rules, stated of the untrimmed input: an address has no inner whitespace, so its
    // trimmed length is the length of its non-space run.
    trimmedInputSchema(`^\\s*(?=\\S{1,${MAX_EMAIL}}\\s*$)[^\\s@]+@[^\\s@]+\\.[^\\s@]+\\s*$`),
  ),
  z.transform((v) => v.toLowerCase()),
);

/** A phone as typed (at most 50 characters); the service normalises it to E.164 with the Tenant's country. */
export const PhoneText = z.string().check(
  z.trim(),
  z.refine((v) => v.length <= 50, { message: 'At most 50 characters', abort: true }),
  z.regex(/^\+?[\d\s().\-/]+$/, 'Must be a phone number: digits, spaces, + . - ( ) /'),
  // The same rules, stated of the untrimmed input: 1–50 characters once trimmed.
  trimmedInputSchema('^\\s*(?=\\S(?:[\\s\\S]{0,48}\\S)?\\s*$)\\+?[\\d\\s().\\-/]+$'),
);

const Name = trimmedText(255, 'Must not be empty');
/** Notes are free text; the bound keeps a Lead (and its search items' copies) small. */
const Notes = z.string().check(z.maxLength(10_000));

export const LeadManualCreate = z.object({
  name: Name,
  email: z.nullish(EmailAddress),
  phone: z.nullish(PhoneText),
  notes: z.nullish(Notes),
  assigned_agent_id: z
    .nullish(Uuid)
    .check(
      z.describe(
        "An Agent of the Tenant; null: Unassigned. Omitted: the creator's linked Agent, and an API key has none, so the owner rule assigns one (round-robin over active Agents)",
      ),
    ),
});
export type LeadManualCreateInput = z.infer<typeof LeadManualCreate>;

export const LeadUpdate = nonEmptyEdit(
  z.object({
    status: z
      .nullish(z.enum(LEAD_STATUSES))
      .check(z.describe('A move of the pipeline (see the state machine); null leaves the status as it is')),
    notes: z.nullish(Notes).check(z.describe('null clears the notes')),
    assigned_agent_id: z.nullish(Uuid).check(z.describe('An active Agent of the Tenant; null: Unassigned')),
  }),
);
export type LeadUpdateInput = z.infer<typeof LeadUpdate>;

export const LeadPath = z.object({ lead_id: Uuid });

/** Comma-separated values of an enumeration (repeated parameters arrive joined by commas). */
function enumList<T extends readonly [string, ...string[]]>(values: T) {
  return z.pipe(
    z.pipe(
      z.string(),
      z.transform((v) => [...new Set(v.split(',').map((s) => s.trim()))]),
    ),
    z.array(z.enum(values, { message: `Must be one or more of ${values.join(', ')}` })).check(z.minLength(1)),
  );
}

export const TIER_FILTERS = [...SCORE_TIERS, 'unscored'] as const;

export const LeadListQuery = z.extend(PageQuery, {
  include_archived: z._default(z.optional(QueryBoolean), false),
  status: z.optional(enumList(LEAD_STATUSES)).check(z.describe('One status, or several separated by commas')),
  tier: z
    .optional(enumList(TIER_FILTERS))
    .check(z.describe('Score tier: hot, warm, moderate, cold or unscored; several separated by commas')),
  owner: z
    .optional(z.union([Uuid, z.literal('unassigned')], { message: 'Must be an agent id or unassigned' }))
    .check(z.describe('An agent id, or unassigned')),
  q: z
    .optional(z.string().check(z.trim(), z.minLength(2, 'At least 2 characters'), z.maxLength(200)))
    .check(
      z.describe(
        'Words of the name, email, phone or notes; every word must begin a word of the Lead (case- and accent-insensitive). When a word has 3 letters or more (a number: 6 digits or more), pages run by (created_at, id) instead of (updated_at, id). Like every list, a page may hold fewer than limit Leads (even none) with a next_cursor: each request reads a bounded number of items',
      ),
    ),
});
export type LeadListInput = z.infer<typeof LeadListQuery>;

export const LeadOut = z.object({
  id: Uuid,
  name: z.string(),
  email: z.nullable(z.string()).check(z.describe('Lowercased')),
  phone: z.nullable(z.string()).check(z.describe('E.164, e.g. +34600123456')),
  locale: z.nullable(z.string()),
  notes: z.nullable(z.string()),
  status: z.enum(LEAD_STATUSES),
  source: z.enum(LEAD_SOURCES),
  assigned_agent_id: z.nullable(Uuid).check(z.describe('The Lead Owner; null: Unassigned')),
  is_active: z.boolean().check(z.describe('false once archived')),
  score: z.nullable(z.number().check(z.int(), z.gte(0), z.lte(100))).check(z.describe('null until scored')),
  score_tier: z.nullable(z.enum(SCORE_TIERS)),
  buyer_type: z.nullable(z.enum(BUYER_TYPES)),
  recommended_action: z.nullable(z.enum(RECOMMENDED_ACTIONS)),
  score_reasons: z.array(z.string()),
  scored_at: z.nullable(z.string()),
  campaign: z
    .nullable(z.string())
    .check(z.describe('Free-text attribution of the integration that brought the Lead')),
  created_at: z.string(),
  updated_at: z.string(),
});
export type LeadOutput = z.infer<typeof LeadOut>;

/** Storage record → the public Lead. */
export function toLeadOut(lead: LeadRecord): LeadOutput {
  return {
    id: lead.id,
    name: lead.name,
    email: lead.email ?? null,
    phone: lead.phone ?? null,
    locale: lead.locale ?? null,
    notes: lead.notes ?? null,
    status: lead.status,
    source: lead.source,
    assigned_agent_id: lead.assignedAgentId ?? null,
    is_active: lead.isActive,
    score: lead.score ?? null,
    score_tier: lead.scoreTier ?? null,
    buyer_type: lead.buyerType ?? null,
    recommended_action: lead.recommendedAction ?? null,
    score_reasons: lead.scoreReasons ?? [],
    scored_at: lead.scoredAt ?? null,
    campaign: lead.campaign ?? null,
    created_at: lead.createdAt,
    updated_at: lead.updatedAt,
  };
}

/**
 * A Lead write's answer to a key without leads:read (`leads:write` grants writes alone): the Lead's
 * id and the fields the request sent, as the service read them, never the stored Lead. Such a key
 * learns nothing it did not send (the Owner a rule picked, another contact's notes merged onto).
 */
const SENT = 'Sent by the request (present only when it was), as the service read it';

export const LeadCreateReceipt = z
  .object({
    id: Uuid.check(z.describe('The new Lead, or the existing Lead the email or phone merged it onto')),
    name: z.string().check(z.describe(`${SENT}: trimmed`)),
    email: z.optional(z.nullable(z.string())).check(z.describe(`${SENT}: trimmed, lowercased`)),
    phone: z.optional(z.nullable(z.string())).check(z.describe(`${SENT}: trimmed, as typed`)),
    notes: z.optional(z.nullable(z.string())).check(z.describe(SENT)),
    assigned_agent_id: z.optional(z.nullable(Uuid)).check(z.describe(SENT)),
  })
  .check(z.describe('The answer to a key without leads:read: the id and the fields the request sent'));

export const LeadUpdateReceipt = z
  .object({
    id: Uuid,
    status: z.optional(z.nullable(z.enum(LEAD_STATUSES))).check(z.describe(SENT)),
    notes: z.optional(z.nullable(z.string())).check(z.describe(SENT)),
    assigned_agent_id: z.optional(z.nullable(Uuid)).check(z.describe(SENT)),
  })
  .check(z.describe('The answer to a key without leads:read: the id and the fields the request sent'));

/** POST /v1/leads answers: the whole Lead to a key with leads:read, else the receipt. */
export const LeadCreateAnswer = z.union([LeadOut, LeadCreateReceipt]);
/** PATCH /v1/leads/{lead_id} answers: the whole Lead to a key with leads:read, else the receipt. */
export const LeadUpdateAnswer = z.union([LeadOut, LeadUpdateReceipt]);

export function toLeadCreateReceipt(
  id: string,
  sent: LeadManualCreateInput,
): z.infer<typeof LeadCreateReceipt> {
  return { id, name: sent.name, ...presentFields(sent, ['email', 'phone', 'notes', 'assigned_agent_id']) };
}

export function toLeadUpdateReceipt(id: string, sent: LeadUpdateInput): z.infer<typeof LeadUpdateReceipt> {
  return { id, ...presentFields(sent, ['status', 'notes', 'assigned_agent_id']) };
}

export const IngestPersonIn = z
  .object({
    name: Name,
    email: z.nullish(EmailAddress),
    phone: z.nullish(PhoneText),
    locale: z.nullish(trimmedText(35)),
  })
  .check(
    z.meta({
      description: 'At least one of email or phone',
      anyOf: [
        { required: ['email'], properties: { email: { type: 'string' } } },
        { required: ['phone'], properties: { phone: { type: 'string' } } },
      ],
    }),
    z.superRefine((person, ctx) => {
      if (!person.email && !person.phone) {
        ctx.addIssue({ code: 'custom', message: 'At least one of email or phone is required', path: [] });
      }
    }),
  );

export const LeadIngestIn = z
  .object({
    source: trimmedText(255, 'Must not be empty').check(z.describe('Free-text attribution')),
    type: z.enum(['inquiry', 'registration', 'note']),
    person: IngestPersonIn,
    campaign: z
      .nullish(z.string().check(z.trim(), z.maxLength(255)))
      .check(z.describe('Free-text attribution')),
    message: z.nullish(z.string().check(z.maxLength(50_000))),
    occurred_at: z
      .nullish(OffsetDateTime)
      .check(z.describe('Defaults to now; more than 7 days ago makes a new Lead a backfill (source import)')),
    property_id: z.nullish(Uuid),
    property_ref: z
      .nullish(trimmedText(255))
      .check(z.describe("A listing's slug (retired slugs too) or the agency's own reference (internal_ref)")),
    agent_id: z.nullish(Uuid),
    agent_email: z
      .nullish(
        z
          .string()
          .check(
            z.trim(),
            z.maxLength(MAX_EMAIL),
            trimmedInputSchema(`^\\s*(?:\\S(?:[\\s\\S]{0,${MAX_EMAIL - 2}}\\S)?)?\\s*$`),
          ),
      )
      .check(z.describe('Not with agent_id')),
  })
  .check(
    z.meta({
      // agent_id and a non-blank agent_email are not both sent.
      not: {
        required: ['agent_id', 'agent_email'],
        properties: { agent_id: { type: 'string' }, agent_email: { type: 'string', pattern: '\\S' } },
      },
    }),
    z.superRefine((event, ctx) => {
      if (event.agent_id && event.agent_email) {
        ctx.addIssue({
          code: 'custom',
          message: 'Send agent_id or agent_email, not both',
          path: ['agent_email'],
        });
      }
    }),
  );
export type LeadIngestInput = z.infer<typeof LeadIngestIn>;

/** Something an ingestion could not honour without refusing the event. */
export const IngestWarningOut = z.object({ code: z.enum(INGEST_WARNING_CODES), detail: z.string() });

export const LeadIngestOut = z.object({
  lead: LeadOut,
  inquiry_id: z.nullable(Uuid).check(z.describe('The Inquiry recorded for an inquiry or registration')),
  activity_id: z.nullable(Uuid).check(z.describe('The Activity (kind note) recorded for a note')),
  warnings: z
    .array(IngestWarningOut)
    .check(
      z.describe(
        "What could not be honoured without refusing the event. agent_unmatched: the named Agent is unknown, or it does not own the Lead (the Lead already had an Owner, the Agent is inactive, or the listing's Agent came first); detail says which",
      ),
    ),
});
