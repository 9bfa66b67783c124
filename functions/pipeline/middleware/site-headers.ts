/**
 * Every viewer header the site routes read: admission (site-access.ts), the CORS preflight
 * (functions/http/site/preflight.ts) and the idempotency of site writes. CloudFront forwards only
 * the headers its policies list, so the site distribution forwards exactly these
 * (lib/constructs/site-distribution.ts; test/infra/site.test.ts checks the synthesized policies): a
 * header read but not listed here never arrives behind CloudFront. The Turnstile token travels in the
 * body. Spelled as CloudFront documents them (headers are read case-insensitively); this module
 * imports nothing, so the CDK app reads it without loading the functions' code.
 */
export const SITE_REQUEST_HEADERS = {
  /** The page's origin (origin rules, CORS). */
  origin: 'Origin',
  /** The page (inquiry attribution). */
  referer: 'Referer',
  /** The visitor's address as CloudFront saw it: the visitor budgets count it. */
  viewerAddress: 'CloudFront-Viewer-Address',
  /** A retried site write replays its first answer (interface: Idempotency-Key on every write). */
  idempotencyKey: 'Idempotency-Key',
  /** The declared type of a site write's body, passed on as the page sent it. */
  contentType: 'Content-Type',
  /** The CORS preflight: the method it announces. */
  preflightMethod: 'Access-Control-Request-Method',
} as const;

/** The headers a page may send with a site request besides the CORS-safelisted ones (the preflight's answer). */
export const SITE_PAGE_HEADERS = [
  SITE_REQUEST_HEADERS.contentType,
  SITE_REQUEST_HEADERS.idempotencyKey,
] as const;
