import type { EntityItem } from 'electrodb';
import { lookupPrefix, queryWords, searchPrefixes, searchWords } from '../domain/leads.ts';
import type { Lead } from './entities/lead.ts';
import { LeadSearchToken } from './entities/lead-search-token.ts';

type LeadItem = EntityItem<typeof Lead>;
export type LeadSearchTokenRecord = EntityItem<typeof LeadSearchToken>;

/**
 * At most this many prefixes per Lead, so that a Lead write (Lead, 2 claims, an Inquiry, the old
 * tokens' deletes and the new tokens' puts) always fits one 100-action transaction. Words come in
 * the order name, email, phone, notes, so only notes words beyond the cap (about the twelfth word
 * on, at four prefixes a word) lose their prefix.
 */
export const MAX_SEARCH_PREFIXES = 46;

/** Notes longer than this are left out of the tokens' copy (the search page then reads that Lead). */
export const TOKEN_NOTES_MAX = 500;

/** The words a Lead is found by, and the prefixes its token items are filed under. */
export function searchIndexOf(lead: Pick<LeadItem, 'name' | 'email' | 'phone' | 'notes'>): {
  words: string[];
  prefixes: string[];
} {
  const words = searchWords([lead.name, lead.email, lead.phone, lead.notes]);
  return { words, prefixes: searchPrefixes(words).slice(0, MAX_SEARCH_PREFIXES) };
}

/** The token items of a Lead as it is stored (its `searchPrefixes` already computed). */
export function tokensOf(lead: LeadItem): LeadSearchTokenRecord[] {
  const { words } = searchIndexOf(lead);
  const text = ` ${words.join(' ')}`;
  const { searchPrefixes: _prefixes, ...copy } = lead;
  const complete = (lead.notes?.length ?? 0) <= TOKEN_NOTES_MAX;
  if (!complete) delete copy.notes;
  return (lead.searchPrefixes ?? []).map((prefix) => ({
    tenantId: lead.tenantId,
    prefix,
    leadId: lead.id,
    updatedAt: lead.updatedAt,
    text,
    status: lead.status,
    ownerKey: lead.ownerKey,
    tierKey: lead.tierKey,
    isActive: lead.isActive,
    lead: copy,
    complete,
  }));
}

/** The folded words of `q`; the partition searched is the longest word's prefix (the most selective). */
export function searchPlan(q: string): { words: string[]; prefix: string } | undefined {
  const words = queryWords(q);
  const longest = [...words].sort((a, b) => b.length - a.length)[0];
  if (!longest) return undefined;
  return { words, prefix: lookupPrefix(longest) };
}

export interface LeadSearchQuery {
  tenantId: string;
  plan: { words: string[]; prefix: string };
  limit: number;
  after?: { updatedAt: string; id: string } | undefined;
  since?: string | undefined;
  includeArchived: boolean;
  statuses?: readonly string[] | undefined;
  ownerKey?: string | undefined;
  tierKeys?: readonly string[] | undefined;
}

/**
 * One page of `q` hits, least recently updated first: a Query of one prefix partition, every word
 * and the other filters applied as filter expressions, `count` reading on until the page is full.
 * Returns the tokens (their copy of the Lead; `complete` false when its long notes were left out).
 */
export async function searchLeadTokens(q: LeadSearchQuery): Promise<LeadSearchTokenRecord[]> {
  const index = LeadSearchToken.query.byPrefix({ tenantId: q.tenantId, prefix: q.plan.prefix });
  const ranged = q.after
    ? index.gt({ updatedAt: q.after.updatedAt, leadId: q.after.id })
    : q.since
      ? index.gte({ updatedAt: q.since })
      : index;
  const { data } = await ranged
    .where((a, op) => {
      const clauses = q.plan.words.map((w) => op.contains(a.text, ` ${w}`));
      if (!q.includeArchived) clauses.push(op.eq(a.isActive, true));
      if (q.statuses?.length) clauses.push(`(${q.statuses.map((s) => op.eq(a.status, s)).join(' OR ')})`);
      if (q.ownerKey) clauses.push(op.eq(a.ownerKey, q.ownerKey));
      if (q.tierKeys?.length) clauses.push(`(${q.tierKeys.map((t) => op.eq(a.tierKey, t)).join(' OR ')})`);
      return clauses.join(' AND ');
    })
    .go({ limit: q.limit + 1, count: q.limit + 1 });
  return data;
}
