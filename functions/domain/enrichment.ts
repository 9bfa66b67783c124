import * as z from 'zod/mini';
import type { LanguageText, ListingTexts } from './listing-text.ts';

/** AI enrichment of a listing (docs/listings.md): states, triggers, retries, spend. No I/O here. */
export const ENRICHMENT_STATUSES = ['pending', 'enriched', 'failed', 'off', 'paused'] as const;
export type EnrichmentStatus = (typeof ENRICHMENT_STATUSES)[number];

export const MAX_HIGHLIGHTS = 6;
export const SEO_DESCRIPTION_MAX = 160;

/** What the provider is asked: the facts of the listing and which texts it may write. */
export interface EnrichmentRequest {
  sourceLanguage: string;
  /** Every enabled Site Language, the source language included. */
  languages: string[];
  facts: {
    title: string;
    description: string | null;
    listingType: string | null;
    propertyType: string | null;
    bedrooms: number | null;
    bathrooms: string | null;
    area: string | null;
    lotArea: string | null;
    price: string | null;
    rentPrice: string | null;
    currency: string | null;
    place: string | null;
    amenities: string[];
  };
  /** Per language, the fields a client wrote: the provider's output for those is discarded. */
  clientWritten: Record<string, { title?: boolean; description?: boolean; highlights?: boolean }>;
}

/**
 * The provider's answer, validated before anything is stored. Built in a function marked pure: a
 * bundler counts each `.check()` as a side effect, so without the mark every function that imports
 * this module only for its constants (the listing handlers) would carry the schema and zod's record.
 */
export const EnrichmentOutput = /* @__PURE__ */ (() =>
  z.object({
    languages: z.record(
      z.string(),
      z.object({
        /** null: the provider could not produce a real translation (never a copy of the source). */
        title: z.nullable(z.string().check(z.minLength(1), z.maxLength(255))),
        description: z.nullable(z.string().check(z.minLength(1), z.maxLength(20_000))),
        highlights: z
          .array(z.string().check(z.minLength(1), z.maxLength(120)))
          .check(z.maxLength(MAX_HIGHLIGHTS)),
        seo_description: z.string().check(z.minLength(1), z.maxLength(SEO_DESCRIPTION_MAX)),
      }),
    ),
  }))();
export type EnrichmentOutput = z.infer<typeof EnrichmentOutput>;

export interface TokenUsage {
  inputTokens: number;
  outputTokens: number;
}

export interface AiAllowance {
  enabled: boolean;
  monthlyLimitUsd: number | null;
  spentThisMonthUsd: number;
}

/**
 * Does this write queue enrichment? A create does; an edit does when it puts the listing on the
 * website, or changes its title or description while it is there. `ai_enrichment: false` skips.
 */
export function enrichmentTriggered(change: {
  created: boolean;
  aiEnrichment: boolean;
  wasLive: boolean;
  isLive: boolean;
  textChanged: boolean;
}): boolean {
  if (!change.aiEnrichment) return false;
  if (change.created) return true;
  if (!change.isLive) return false;
  return !change.wasLive || change.textChanged;
}

/** The state a triggered enrichment starts in, given the Tenant's switch and spend ceiling. */
export function statusOnTrigger(
  allowance: AiAllowance,
): Extract<EnrichmentStatus, 'pending' | 'off' | 'paused'> {
  if (!allowance.enabled) return 'off';
  if (allowance.monthlyLimitUsd !== null && allowance.spentThisMonthUsd >= allowance.monthlyLimitUsd)
    return 'paused';
  return 'pending';
}

/** Retry ladder of a failing provider: three more tries, then failed. */
export const RETRY_DELAYS_SECONDS = [30, 120, 600] as const;

export function retryDelaySeconds(attempt: number): number | undefined {
  return RETRY_DELAYS_SECONDS[attempt - 1];
}

export function costUsd(usage: TokenUsage, pricePer1k: { input: number; output: number }): number {
  return (usage.inputTokens / 1000) * pricePer1k.input + (usage.outputTokens / 1000) * pricePer1k.output;
}

/** "2026-11": the spend month, in UTC. */
export function spendMonth(at: Date): string {
  return at.toISOString().slice(0, 7);
}

/**
 * Merges an enrichment into the stored texts without touching what a client wrote; the source
 * language's title and description are the listing's own and never replaced.
 */
export function mergeEnrichment(
  texts: ListingTexts,
  sourceLanguage: string,
  output: EnrichmentOutput,
): ListingTexts {
  const merged: ListingTexts = structuredClone(texts);
  for (const [language, generated] of Object.entries(output.languages)) {
    const current: LanguageText = merged[language] ?? {};
    const client = new Set(current.clientFields ?? []);
    const own = language === sourceLanguage;
    if (!own && !client.has('title') && generated.title) current.title = generated.title;
    if (!own && !client.has('description') && generated.description)
      current.description = generated.description;
    if (!client.has('highlights') && generated.highlights.length > 0)
      current.highlights = generated.highlights;
    current.seoDescription = generated.seo_description;
    merged[language] = current;
  }
  return merged;
}

/** Cuts text at a word boundary to at most `max` characters, with an ellipsis when cut. */
export function truncateText(text: string, max: number): string {
  const clean = text.replace(/\s+/g, ' ').trim();
  if (clean.length <= max) return clean;
  const cut = clean.slice(0, max - 1);
  const space = cut.lastIndexOf(' ');
  return `${(space > max * 0.6 ? cut.slice(0, space) : cut).replace(/[\s,.;:-]+$/, '')}…`;
}
