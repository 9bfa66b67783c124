import type { EntityItem } from 'electrodb';
import { lookupPrefix, queryWords, searchPrefixes, searchWords } from '../domain/leads.ts';
import { type BoundedPage, mergeBounded, readBudget, stoppedAtOf } from './bounded-read.ts';
import type { Lead, LeadList } from './entities/lead.ts';
import { LeadSearchToken, type LegacyLeadSearchToken } from './entities/lead-search-token.ts';
import { SDK_ERRORS } from './errors.ts';

type LeadItem = EntityItem<typeof Lead>;
export type LeadSearchTokenRecord = EntityItem<typeof LeadSearchToken>;
type TokenKey = Pick<LeadSearchTokenRecord, 'tenantId' | 'listKey' | 'prefix' | 'createdAt' | 'leadId'>;
type LegacyTokenKey = Pick<
  EntityItem<typeof LegacyLeadSearchToken>,
  'tenantId' | 'prefix' | 'updatedAt' | 'leadId'
>;

/**
 * At most this many prefixes per Lead, so that a Lead write (Lead, 2 claims, an Inquiry, the old
 * tokens' deletes and the new tokens' puts) always fits one 100-action transaction. Words come in
 * the order name, email, phone, notes, so only notes words beyond the cap lose their prefix.
 */
export const MAX_SEARCH_PREFIXES = 46;

/** The list (live or archived) a Lead and its tokens are filed under. */
export function listOf(lead: Pick<LeadItem, 'isActive'>): LeadList {
  return lead.isActive === false ? 'archived-leads' : 'leads';
}

/** The words a Lead is found by (as `text`, " word word…"), and the prefixes its tokens are filed under. */
export function searchIndexOf(lead: Pick<LeadItem, 'name' | 'email' | 'phone' | 'notes'>): {
  words: string[];
  text: string;
  prefixes: string[];
} {
  const words = searchWords([lead.name, lead.email, lead.phone, lead.notes]);
  return { words, text: ` ${words.join(' ')}`, prefixes: prefixesOf(words) };
}

function prefixesOf(words: string[]): string[] {
  return searchPrefixes(words).slice(0, MAX_SEARCH_PREFIXES);
}

/**
 * The prefixes a stored Lead's tokens are filed under, from its `searchText` (not stored apart:
 * every byte of a Lead is written five times, once per index, on each write).
 */
export function searchKeysOf(lead: Pick<LeadItem, 'searchText'>): string[] {
  return lead.searchText === undefined ? [] : prefixesOf(lead.searchText.split(' ').filter(Boolean));
}

/** The token items of a Lead as it is stored (its `searchText` and `listKey` already derived). */
export function tokensOf(lead: LeadItem): LeadSearchTokenRecord[] {
  const listKey = lead.listKey ?? listOf(lead);
  return searchKeysOf(lead).map((prefix) => ({
    tenantId: lead.tenantId,
    listKey,
    prefix,
    leadId: lead.id,
    createdAt: lead.createdAt,
    text: lead.searchText ?? '',
  }));
}

/**
 * The token writes of a Lead write: none unless a searched field (name, email, phone, notes) or the
 * list (archiving) changed, so a status, score or owner change writes the Lead alone. Otherwise the
 * tokens of prefixes the Lead no longer has are deleted and every current one is put (each holds
 * the whole `text`). Tokens of the legacy layout (`searchPrefixes`) are deleted on the first write.
 */
export function tokenWrites(
  previous: LeadItem | undefined,
  next: LeadItem,
): { legacyDeletes: LegacyTokenKey[]; deletes: TokenKey[]; puts: LeadSearchTokenRecord[] } {
  const legacyDeletes = (previous?.searchPrefixes ?? []).map((prefix) => ({
    tenantId: next.tenantId,
    prefix,
    updatedAt: previous?.updatedAt ?? '',
    leadId: next.id,
  }));
  const previousList = previous?.listKey ?? 'leads';
  const unchanged =
    previous !== undefined && previous.searchText === next.searchText && previousList === next.listKey;
  if (unchanged) return { legacyDeletes, deletes: [], puts: [] };
  const kept = new Set(previousList === next.listKey ? searchKeysOf(next) : []);
  const deletes = (previous ? searchKeysOf(previous) : [])
    .filter((prefix) => !kept.has(prefix))
    .map((prefix) => ({
      tenantId: next.tenantId,
      listKey: previousList,
      prefix,
      createdAt: next.createdAt,
      leadId: next.id,
    }));
  return { legacyDeletes, deletes, puts: tokensOf(next) };
}

export interface SearchPlan {
  /** The folded words of `q`: every one must begin a word of the Lead. */
  words: string[];
  /**
   * The token partition read: the prefix of the word with the longest one (the most selective);
   * undefined when no word is long enough to have one (`q=34`): the list is read instead, with a bound.
   */
  prefix: string | undefined;
}

export function searchPlan(q: string): SearchPlan | undefined {
  const words = queryWords(q);
  if (words.length === 0) return undefined;
  const prefixes = words.flatMap((w) => lookupPrefix(w) ?? []);
  const longest = prefixes.sort((a, b) => b.length - a.length)[0];
  return { words, prefix: longest };
}

export interface LeadSearchQuery {
  tenantId: string;
  words: readonly string[];
  prefix: string;
  limit: number;
  /** Exclusive lower bound: the (createdAt, id) of the last Lead already examined. */
  after?: { createdAt: string; id: string } | undefined;
  includeArchived: boolean;
}

/**
 * One page of `q` hits in creation order (createdAt, leadId): a bounded Query of the prefix's
 * partition (and its archived twin with include_archived), every word a filter expression. The
 * caller reads the Leads hit and applies the other filters.
 */
export async function searchLeadTokens(q: LeadSearchQuery): Promise<BoundedPage<LeadSearchTokenRecord>> {
  const lists: LeadList[] = q.includeArchived ? ['leads', 'archived-leads'] : ['leads'];
  const budget = readBudget(q.limit, lists.length);
  const reads = await Promise.all(
    lists.map(async (listKey) => {
      const index = LeadSearchToken.query.byPrefix({ tenantId: q.tenantId, listKey, prefix: q.prefix });
      const ranged = q.after ? index.gt({ createdAt: q.after.createdAt, leadId: q.after.id }) : index;
      const { data, cursor } = await ranged
        .where((a, op) => q.words.map((w) => op.contains(a.text, ` ${w}`)).join(' AND '))
        .go({ limit: budget, pages: 1, ...SDK_ERRORS });
      return { items: data, stoppedAt: stoppedAtOf(cursor, 'sk') };
    }),
  );
  return mergeBounded(reads, q.limit, (t) => ({ at: t.createdAt, id: t.leadId }));
}
