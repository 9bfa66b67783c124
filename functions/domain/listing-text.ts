/**
 * A listing's text in several languages (the API's text rules):
 * 1. without ?lang=, title and description are the listing's own text (its source language);
 * 2. with ?lang= naming an enabled Site Language, title, description and highlights are that
 *    language's text;
 * 3. text a client sends is the client's own: AI runs leave it alone;
 * 4. a write answers in the language it was written in.
 */
export type TextField = 'title' | 'description' | 'highlights';

export interface LanguageText {
  title?: string;
  description?: string;
  highlights?: string[];
  seoDescription?: string;
  /** Fields a client wrote in this language. */
  clientFields?: TextField[];
}

export type ListingTexts = Record<string, LanguageText>;

export interface TextWrite {
  title?: string | undefined;
  description?: string | null | undefined;
  highlights?: string[] | null | undefined;
}

/**
 * Applies a client's text write in `language` to the per-language texts. The source language's
 * title and description live on the listing itself; everything else lives here.
 */
export function writeTexts(
  texts: ListingTexts,
  language: string,
  sourceLanguage: string,
  write: TextWrite,
): ListingTexts {
  const next: ListingTexts = structuredClone(texts);
  const entry: LanguageText = next[language] ?? {};
  const client = new Set(entry.clientFields ?? []);
  const isSource = language === sourceLanguage;
  for (const field of ['title', 'description', 'highlights'] as const) {
    const value = write[field];
    if (value === undefined) continue;
    if (value === null) {
      // Cleared: the field is nobody's now, so a later AI run may fill it again.
      delete entry[field];
      client.delete(field);
      continue;
    }
    if (!(isSource && field !== 'highlights')) (entry as Record<string, unknown>)[field] = value;
    client.add(field);
  }
  entry.clientFields = [...client];
  next[language] = entry;
  return next;
}

export interface TextView {
  language: string;
  title: string;
  description: string | null;
  highlights: string[];
  seo_description: string | null;
  /** Fields shown in the source language because `language` has no text for them yet. */
  untranslated: ('title' | 'description')[];
}

/** What a read in `language` (or the listing's own language) shows. */
export function viewTexts(
  listing: {
    title: string;
    description?: string | undefined;
    sourceLanguage: string;
    texts?: ListingTexts | undefined;
  },
  language?: string,
): TextView {
  const lang = language ?? listing.sourceLanguage;
  const entry = listing.texts?.[lang] ?? {};
  if (lang === listing.sourceLanguage) {
    return {
      language: lang,
      title: listing.title,
      description: listing.description ?? null,
      highlights: entry.highlights ?? [],
      seo_description: entry.seoDescription ?? null,
      untranslated: [],
    };
  }
  const untranslated: ('title' | 'description')[] = [];
  if (!entry.title) untranslated.push('title');
  if (!entry.description && listing.description) untranslated.push('description');
  return {
    language: lang,
    title: entry.title ?? listing.title,
    description: entry.description ?? listing.description ?? null,
    highlights: entry.highlights ?? [],
    seo_description: entry.seoDescription ?? null,
    untranslated,
  };
}

/** Which languages a client wrote what in: what the AI provider must not override. */
export function clientWritten(
  texts: ListingTexts,
  sourceLanguage: string,
): Record<string, Partial<Record<TextField, boolean>>> {
  const out: Record<string, Partial<Record<TextField, boolean>>> = {
    [sourceLanguage]: { title: true, description: true },
  };
  for (const [language, entry] of Object.entries(texts)) {
    for (const field of entry.clientFields ?? []) out[language] = { ...out[language], [field]: true };
  }
  return out;
}
