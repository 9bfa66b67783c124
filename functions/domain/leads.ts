/** Lead rules: the enumerations, the pipeline and the score tiers (docs/leads-core.md). No I/O here. */

export const LEAD_STATUSES = [
  'new',
  'contacted',
  'qualified',
  'negotiating',
  'closed_won',
  'closed_lost',
] as const;
export type LeadStatus = (typeof LEAD_STATUSES)[number];
/** widget: a Lead created by an Inquiry from the agency's website through the site API (POST /v1/site/leads). */
export const LEAD_SOURCES = ['website', 'manual', 'concierge', 'api', 'import', 'widget'] as const;
export type LeadSource = (typeof LEAD_SOURCES)[number];
export const SCORE_TIERS = ['hot', 'warm', 'moderate', 'cold'] as const;
export type ScoreTier = (typeof SCORE_TIERS)[number];
export const BUYER_TYPES = [
  'investor',
  'retiree',
  'vacation_home',
  'relocation',
  'renter',
  'local_buyer',
  'unknown',
] as const;
export const RECOMMENDED_ACTIONS = [
  'call_immediately',
  'send_comps',
  'nurture_sequence',
  'low_priority',
] as const;

/**
 * The pipeline. A Lead moves forward (skipping steps is allowed) toward closed_won or closed_lost:
 * - new → contacted, qualified, negotiating, closed_lost
 * - contacted → qualified, negotiating, closed_lost
 * - qualified → negotiating, closed_won, closed_lost
 * - negotiating → closed_won, closed_lost
 * - closed_won, closed_lost → contacted (reopen: the conversation starts again)
 * closed_won needs a qualified or negotiating Lead; staying in the same status is always allowed.
 */
const MOVES: Record<LeadStatus, readonly LeadStatus[]> = {
  new: ['contacted', 'qualified', 'negotiating', 'closed_lost'],
  contacted: ['qualified', 'negotiating', 'closed_lost'],
  qualified: ['negotiating', 'closed_won', 'closed_lost'],
  negotiating: ['closed_won', 'closed_lost'],
  closed_won: ['contacted'],
  closed_lost: ['contacted'],
};

export function canMove(from: LeadStatus, to: LeadStatus): boolean {
  return from === to || MOVES[from].includes(to);
}

export function allowedMoves(from: LeadStatus): readonly LeadStatus[] {
  return MOVES[from];
}

/** Tier by the published thresholds: hot from 80, warm from 60, moderate from 40, else cold. */
export function tierOf(score: number): ScoreTier {
  if (score >= 80) return 'hot';
  if (score >= 60) return 'warm';
  if (score >= 40) return 'moderate';
  return 'cold';
}

/** Emails compare case-insensitively and trimmed. */
export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

/** Country calling codes, and whether national numbers start with a trunk prefix 0 to drop. */
const CALLING_CODES: Record<string, { code: string; trunkZero: boolean }> = {
  US: { code: '1', trunkZero: false },
  CA: { code: '1', trunkZero: false },
  GB: { code: '44', trunkZero: true },
  IE: { code: '353', trunkZero: true },
  ES: { code: '34', trunkZero: false },
  PT: { code: '351', trunkZero: false },
  FR: { code: '33', trunkZero: true },
  DE: { code: '49', trunkZero: true },
  AT: { code: '43', trunkZero: true },
  CH: { code: '41', trunkZero: true },
  IT: { code: '39', trunkZero: false },
  NL: { code: '31', trunkZero: true },
  BE: { code: '32', trunkZero: true },
  LU: { code: '352', trunkZero: false },
  DK: { code: '45', trunkZero: false },
  NO: { code: '47', trunkZero: false },
  SE: { code: '46', trunkZero: true },
  FI: { code: '358', trunkZero: true },
  PL: { code: '48', trunkZero: false },
  GR: { code: '30', trunkZero: false },
  MT: { code: '356', trunkZero: false },
  CY: { code: '357', trunkZero: false },
  AE: { code: '971', trunkZero: true },
  AU: { code: '61', trunkZero: true },
  NZ: { code: '64', trunkZero: true },
  ZA: { code: '27', trunkZero: true },
  MX: { code: '52', trunkZero: false },
  BR: { code: '55', trunkZero: true },
  AR: { code: '54', trunkZero: true },
};

export const SUPPORTED_COUNTRIES = Object.keys(CALLING_CODES);

/**
 * E.164 (`+34600123456`) from what people type: spaces, dots, dashes and brackets go; `00` is an
 * international prefix; a national number gets the Tenant's country code (and loses its trunk 0
 * where the country uses one). Undefined when it cannot be a phone number (too few digits).
 */
export function normalizePhone(raw: string, defaultCountry: string): string | undefined {
  const trimmed = raw.trim();
  const plus = trimmed.startsWith('+');
  let digits = trimmed.replace(/\D/g, '');
  if (!digits) return undefined;
  let international: string;
  if (plus) international = digits;
  else if (digits.startsWith('00')) international = digits.slice(2);
  else {
    const country = CALLING_CODES[defaultCountry.toUpperCase()] ?? CALLING_CODES.US;
    if (country?.trunkZero && digits.startsWith('0')) digits = digits.slice(1);
    international = (country?.code ?? '1') + digits;
  }
  if (international.length < 8 || international.length > 15) return undefined;
  return `+${international}`;
}

/** An ingested event older than this is a backfill of a contact first seen long ago: source import. */
export const BACKFILL_THRESHOLD_DAYS = 7;

export function isBackfill(occurredAt: Date, now: Date): boolean {
  return now.getTime() - occurredAt.getTime() > BACKFILL_THRESHOLD_DAYS * 86_400_000;
}

/**
 * Words for `q`: lowercased, accents folded, split on anything but letters, digits, @ and +;
 * an email also contributes its local part and domain, a phone its digits.
 */
export function searchWords(fields: (string | undefined | null)[]): string[] {
  const words = new Set<string>();
  for (const field of fields) {
    if (!field) continue;
    const folded = field
      .normalize('NFKD')
      .replace(/[\u0300-\u036f]/g, '')
      .toLowerCase();
    for (const word of folded.split(/[^a-z0-9@+.]+/)) {
      const clean = word.replace(/^[.+]+|[.]+$/g, '');
      if (clean.length < 2) continue;
      words.add(clean.replace(/^\+/, ''));
      for (const part of clean.split(/[@.]/)) if (part.length >= 2) words.add(part);
    }
  }
  return [...words].slice(0, 40);
}

/**
 * Prefix index keys for `q`: each word under its first 3, 4 and 6 letters. A query word is looked
 * up under the longest of these it is at least as long as, so a rare word with a common start
 * ("marchetti") reads the small `marche` partition, not the large `mar` one. No 2-letter
 * prefixes: one of them ("ma", a country code) holds a large share of a Tenant.
 */
export const SEARCH_PREFIX_LENGTHS = [3, 4, 6] as const;

/**
 * Digit words (phones, as E.164 digits) only under their first 6 digits: a country code (at most 3
 * digits) and 3 more, so no partition holds a whole country's phones ("34…" would hold most Leads
 * of a Spanish agency).
 */
export const DIGIT_PREFIX_LENGTHS = [6] as const;

function prefixLengths(word: string): readonly number[] {
  return /^\d+$/.test(word) ? DIGIT_PREFIX_LENGTHS : SEARCH_PREFIX_LENGTHS;
}

/**
 * The index prefix a query word is looked up under, or undefined for a word shorter than every
 * prefix (such a query is answered from the list itself, read with a bound: services/leads.ts).
 */
export function lookupPrefix(word: string): string | undefined {
  const length = [...prefixLengths(word)].reverse().find((n) => word.length >= n);
  return length === undefined ? undefined : word.slice(0, length);
}

export function searchPrefixes(words: string[]): string[] {
  const prefixes = new Set<string>();
  for (const word of words)
    for (const n of prefixLengths(word)) if (word.length >= n) prefixes.add(word.slice(0, n));
  return [...prefixes];
}

/** The words of a `q` query, folded like the index. */
export function queryWords(q: string): string[] {
  return searchWords([q]).filter((w) => !w.includes('@') || w.length >= 2);
}

/** What an ingested event could not honour: named, never a refusal (ordered as listed). */
export const INGEST_WARNING_CODES = [
  'property_ref_unmatched',
  'property_ref_ambiguous',
  'property_not_found',
  'agent_unmatched',
] as const;
export type IngestWarningCode = (typeof INGEST_WARNING_CODES)[number];
export interface IngestWarning {
  code: IngestWarningCode;
  detail: string;
}
