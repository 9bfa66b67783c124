import * as z from 'zod';
import type { LeadRecord } from '../../data/leads.ts';
import {
  BUYER_TYPES,
  LEAD_SOURCES,
  LEAD_STATUSES,
  RECOMMENDED_ACTIONS,
  SCORE_TIERS,
} from '../../domain/leads.ts';
import { INGEST_WARNING_CODES } from '../../services/lead-intake.ts';
import { OffsetDateTime, PageQuery, QueryBoolean, Uuid } from '../shared/schemas.ts';

/** Checked first, aborting: the address pattern is not worth running on a long string. */
const MAX_EMAIL = 320;
const EMAIL_PATTERN = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** An email address, at most 320 characters; compared and stored trimmed and lowercased. */
export const EmailAddress = z
  .string()
  .trim()
  .refine((v) => v.length <= MAX_EMAIL, { message: `At most ${MAX_EMAIL} characters`, abort: true })
  .regex(EMAIL_PATTERN, 'Must be an email address such as ana@example.com')
  .transform((v) => v.toLowerCase());

/** A phone as typed (at most 50 characters); the service normalises it to E.164 with the Tenant's country. */
export const PhoneText = z
  .string()
  .trim()
  .refine((v) => v.length <= 50, { message: 'At most 50 characters', abort: true })
  .regex(/^\+?[\d\s().\-/]+$/, 'Must be a phone number: digits, spaces, + . - ( ) /');

const Name = z.string().trim().min(1, 'Must not be empty').max(255);
/** Notes are free text; the bound keeps a Lead (and its search items' copies) small. */
const Notes = z.string().max(10_000);

export const LeadManualCreate = z.object({
  name: Name,
  email: EmailAddress.nullable().optional(),
  phone: PhoneText.nullable().optional(),
  notes: Notes.nullable().optional(),
  assigned_agent_id: Uuid.nullable()
    .optional()
    .describe(
      "An Agent of the Tenant; null: Unassigned. Omitted: the creator's linked Agent, and an API key has none, so the owner rule assigns one (round-robin over active Agents)",
    ),
});
export type LeadManualCreateInput = z.infer<typeof LeadManualCreate>;

export const LeadUpdate = z.object({
  status: z
    .enum(LEAD_STATUSES)
    .nullable()
    .optional()
    .describe('A move of the pipeline (see the state machine); null leaves the status as it is'),
  notes: Notes.nullable().optional().describe('null clears the notes'),
  assigned_agent_id: Uuid.nullable().optional().describe('An active Agent of the Tenant; null: Unassigned'),
});
export type LeadUpdateInput = z.infer<typeof LeadUpdate>;

export const LeadPath = z.object({ lead_id: Uuid });

/** Comma-separated values of an enumeration (repeated parameters arrive joined by commas). */
function enumList<T extends readonly [string, ...string[]]>(values: T) {
  return z
    .string()
    .transform((v) => [...new Set(v.split(',').map((s) => s.trim()))])
    .pipe(z.array(z.enum(values, { message: `Must be one or more of ${values.join(', ')}` })).min(1));
}

export const TIER_FILTERS = [...SCORE_TIERS, 'unscored'] as const;

export const LeadListQuery = PageQuery.extend({
  include_archived: QueryBoolean.optional().default(false),
  status: enumList(LEAD_STATUSES).optional().describe('One status, or several separated by commas'),
  tier: enumList(TIER_FILTERS)
    .optional()
    .describe('Score tier: hot, warm, moderate, cold or unscored; several separated by commas'),
  owner: z
    .union([Uuid, z.literal('unassigned')], { message: 'Must be an agent id or unassigned' })
    .optional()
    .describe('An agent id, or unassigned'),
  q: z
    .string()
    .trim()
    .min(2, 'At least 2 characters')
    .max(200)
    .optional()
    .describe(
      'Words of the name, email, phone or notes; every word must begin a word of the Lead (case- and accent-insensitive)',
    ),
});
export type LeadListInput = z.infer<typeof LeadListQuery>;

export const LeadOut = z.object({
  id: Uuid,
  name: z.string(),
  email: z.string().nullable().describe('Lowercased'),
  phone: z.string().nullable().describe('E.164, e.g. +34600123456'),
  locale: z.string().nullable(),
  notes: z.string().nullable(),
  status: z.enum(LEAD_STATUSES),
  source: z.enum(LEAD_SOURCES),
  assigned_agent_id: Uuid.nullable().describe('The Lead Owner; null: Unassigned'),
  is_active: z.boolean().describe('false once archived'),
  score: z.number().int().min(0).max(100).nullable().describe('null until scored'),
  score_tier: z.enum(SCORE_TIERS).nullable(),
  buyer_type: z.enum(BUYER_TYPES).nullable(),
  recommended_action: z.enum(RECOMMENDED_ACTIONS).nullable(),
  score_reasons: z.array(z.string()),
  scored_at: z.string().nullable(),
  campaign: z.string().nullable().describe('Free-text attribution of the integration that brought the Lead'),
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

const IngestPersonIn = z
  .object({
    name: Name,
    email: EmailAddress.nullable().optional(),
    phone: PhoneText.nullable().optional(),
    locale: z.string().trim().min(1).max(35).nullable().optional(),
  })
  .superRefine((person, ctx) => {
    if (!person.email && !person.phone) {
      ctx.addIssue({ code: 'custom', message: 'At least one of email or phone is required', path: [] });
    }
  });

export const LeadIngestIn = z
  .object({
    source: z.string().trim().min(1, 'Must not be empty').max(255).describe('Free-text attribution'),
    type: z.enum(['inquiry', 'registration', 'note']),
    person: IngestPersonIn,
    campaign: z.string().trim().max(255).nullable().optional().describe('Free-text attribution'),
    message: z.string().max(50_000).nullable().optional(),
    occurred_at: OffsetDateTime.nullable()
      .optional()
      .describe('Defaults to now; more than 7 days ago makes a new Lead a backfill (source import)'),
    property_id: Uuid.nullable().optional(),
    property_ref: z
      .string()
      .trim()
      .min(1)
      .max(255)
      .nullable()
      .optional()
      .describe("A listing's slug (retired slugs too) or the agency's own reference (internal_ref)"),
    agent_id: Uuid.nullable().optional(),
    agent_email: z.string().trim().max(MAX_EMAIL).nullable().optional(),
  })
  .superRefine((event, ctx) => {
    if (event.agent_id && event.agent_email) {
      ctx.addIssue({
        code: 'custom',
        message: 'Send agent_id or agent_email, not both',
        path: ['agent_email'],
      });
    }
  });
export type LeadIngestInput = z.infer<typeof LeadIngestIn>;

export const LeadIngestOut = z.object({
  lead: LeadOut,
  inquiry_id: Uuid.nullable().describe('The Inquiry recorded for an inquiry or registration'),
  activity_id: Uuid.nullable().describe('The Activity (kind note) recorded for a note'),
  warnings: z
    .array(z.object({ code: z.enum(INGEST_WARNING_CODES), detail: z.string() }))
    .describe('What could not be honoured without refusing the event'),
});
