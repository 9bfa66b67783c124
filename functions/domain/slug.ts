/** URL slugs: lowercase ASCII words joined by hyphens, accents folded ("Ático en Málaga" → "atico-en-malaga"). */
export function slugify(text: string, maxLength = 80): string {
  const slug = text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, maxLength)
    .replace(/-+$/g, '');
  return slug || 'listing';
}

/** The n-th candidate for a slug that is already taken: "x", "x-2", "x-3"… */
export function slugCandidate(base: string, attempt: number): string {
  return attempt <= 1 ? base : `${base}-${attempt}`;
}
