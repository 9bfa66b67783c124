// The site's settings. `npm start` serves its own copy of this file with its API address and the
// demo tenant's publishable key; to host the site elsewhere, fill these in.
export default {
  /** The API's base address, e.g. https://api.example.com (no trailing slash). */
  apiBase: 'http://127.0.0.1:3000',
  /** A publishable key (svc_pk_…) whose allowed origins include this page's origin. */
  publishableKey: '',
  /** A Cloudflare Turnstile site key; null sends Cloudflare's documented dummy token (local stack only). */
  turnstileSiteKey: null,
};
