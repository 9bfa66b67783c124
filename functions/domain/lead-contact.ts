/** Lead contact rules (docs/leads-core.md, rule 1: dedupe and merge). No I/O here. */

/** A person as the service keeps them: email normalised, phone in E.164. */
export interface Contact {
  name: string;
  email?: string | undefined;
  phone?: string | undefined;
  locale?: string | undefined;
  notes?: string | undefined;
}

/** The fields of a Lead the merge reads and fills. */
export interface LeadContactFields {
  name: string;
  email?: string | undefined;
  phone?: string | undefined;
  locale?: string | undefined;
  notes?: string | undefined;
  campaign?: string | undefined;
  sourceDetail?: string | undefined;
}

/** A value a Lead newly holds, claimed in the Lead's own write so no other Lead can hold it. */
export interface ContactClaim {
  kind: 'lead-email' | 'lead-phone';
  value: string;
}

/** Free-text attribution of the integration that brought the contact. */
export interface Attribution {
  campaign?: string | undefined;
  sourceDetail?: string | undefined;
}

/** Notes are appended on a merge, unless the Lead's notes already say exactly that. */
export function appendNotes(current: string | undefined, added: string | undefined): string | undefined {
  const text = added?.trim();
  if (!text) return current;
  if (!current) return text;
  if (current.includes(text)) return current;
  return `${current}\n\n${text}`;
}

/** The claims a new Lead of `contact` makes: its email and its phone. */
export function claimsOfNewContact(contact: Contact): ContactClaim[] {
  const claims: ContactClaim[] = [];
  if (contact.email) claims.push({ kind: 'lead-email', value: contact.email });
  if (contact.phone) claims.push({ kind: 'lead-phone', value: contact.phone });
  return claims;
}

/**
 * Dedupe merge (rule 1): fills what the Lead lacks and never overwrites a non-empty name, email or
 * phone; notes are appended. An email or phone held by another Lead is not moved onto this one.
 */
export function mergeContact<L extends LeadContactFields>(
  current: L,
  contact: Contact,
  heldElsewhere: { email: boolean; phone: boolean },
  attribution: Attribution = {},
): { next: L; claims: ContactClaim[]; changed: boolean } {
  const next: L = { ...current };
  const claims: ContactClaim[] = [];
  if (!next.email && contact.email && !heldElsewhere.email) {
    next.email = contact.email;
    claims.push({ kind: 'lead-email', value: contact.email });
  }
  if (!next.phone && contact.phone && !heldElsewhere.phone) {
    next.phone = contact.phone;
    claims.push({ kind: 'lead-phone', value: contact.phone });
  }
  if (!next.name.trim() && contact.name) next.name = contact.name;
  if (!next.locale && contact.locale) next.locale = contact.locale;
  const notes = appendNotes(next.notes, contact.notes);
  if (notes !== undefined) next.notes = notes;
  if (!next.campaign && attribution.campaign) next.campaign = attribution.campaign;
  if (!next.sourceDetail && attribution.sourceDetail) next.sourceDetail = attribution.sourceDetail;
  const changed = (Object.keys(next) as (keyof L)[]).some((k) => next[k] !== current[k]);
  return { next, claims, changed };
}
