/**
 * The origin rules of publishable keys (docs/site-api.md). Pure: no I/O.
 *
 * An allowed origin is one of:
 * - `https://host` (optionally `:port`), no path: that exact origin;
 * - `https://*.host`: every subdomain of host, at any depth, but not host itself;
 * - `http://localhost`: a page on localhost at any port (`http://127.0.0.1` never matches).
 */

/** A DNS name: labels of letters, digits and inner hyphens (IDNs in their punycode form). */
const LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;
const MAX_ORIGINS = 50;

export const LOCALHOST_ORIGIN = 'http://localhost';

function isHostName(host: string, minLabels: number): boolean {
  if (host.length > 253) return false;
  const labels = host.split('.');
  return labels.length >= minLabels && labels.every((l) => LABEL.test(l));
}

function isPort(port: string): boolean {
  return /^\d{1,5}$/.test(port) && Number(port) >= 1 && Number(port) <= 65535;
}

/**
 * Why `value` cannot be an allowed origin, or undefined when it can. Accepted values are returned
 * normalised by {@link normaliseOrigin}.
 */
export function originProblem(value: string): string | undefined {
  const origin = value.trim().toLowerCase();
  if (origin === LOCALHOST_ORIGIN || /^http:\/\/localhost:\d+$/.test(origin)) {
    const port = origin.split(':')[2];
    return port === undefined || isPort(port) ? undefined : `"${value}": not a valid port`;
  }
  if (origin.startsWith('http://')) {
    return `"${value}": only https:// origins are allowed (http:// only for localhost)`;
  }
  if (!origin.startsWith('https://')) return `"${value}": an origin starts with https://`;
  const rest = origin.slice('https://'.length);
  if (/[/?#]/.test(rest)) return `"${value}": an origin has no path, query or fragment`;
  if (rest.includes('@')) return `"${value}": an origin has no user information`;
  const [hostPart, port, ...extra] = rest.split(':');
  if (extra.length > 0 || (port !== undefined && !isPort(port))) return `"${value}": not a valid port`;
  const host = hostPart ?? '';
  if (host.startsWith('*.')) {
    const base = host.slice(2);
    if (base.includes('*')) return `"${value}": "*." may appear once, at the start of the host`;
    if (!isHostName(base, 2)) return `"${value}": "*." must be followed by a domain such as example.com`;
    return undefined;
  }
  if (host.includes('*'))
    return `"${value}": "*." is allowed only as the first label (https://*.example.com)`;
  if (!isHostName(host, 1)) return `"${value}": not a valid host name`;
  return undefined;
}

/** The stored form of an accepted origin: lowercased; `http://localhost:3000` is `http://localhost`. */
export function normaliseOrigin(value: string): string {
  const origin = value.trim().toLowerCase();
  return origin.startsWith(`${LOCALHOST_ORIGIN}:`) ? LOCALHOST_ORIGIN : origin;
}

/**
 * Parses a comma-separated list of origins. One bad origin refuses the whole list: the problems
 * are returned, and no origins.
 */
export function parseOrigins(
  value: string | readonly string[],
): { origins: string[]; problems: [] } | { origins: []; problems: string[] } {
  const items = (typeof value === 'string' ? value.split(',') : [...value])
    .map((o) => o.trim())
    .filter(Boolean);
  const problems = items.map(originProblem).filter((p): p is string => p !== undefined);
  if (items.length === 0) problems.push('at least one origin is needed, e.g. https://www.example.com');
  if (items.length > MAX_ORIGINS) problems.push(`at most ${MAX_ORIGINS} origins per key`);
  if (problems.length > 0) return { origins: [], problems };
  return { origins: [...new Set(items.map(normaliseOrigin))], problems: [] };
}

/** A page origin as a browser sends it: scheme, host and optional port, nothing else. */
function parsePageOrigin(value: string): { scheme: string; host: string; port?: string } | undefined {
  const match = /^(https?):\/\/([a-z0-9.-]+)(?::(\d{1,5}))?$/.exec(value.toLowerCase());
  if (!match) return undefined;
  const [, scheme, host, port] = match;
  return { scheme: scheme as string, host: host as string, ...(port ? { port } : {}) };
}

/** True when the page origin `origin` is allowed by one of `allowed` (stored, normalised origins). */
export function originAllowed(allowed: readonly string[], origin: string): boolean {
  const page = parsePageOrigin(origin);
  if (!page) return false;
  return allowed.some((entry) => {
    if (entry === LOCALHOST_ORIGIN) return page.scheme === 'http' && page.host === 'localhost';
    if (page.scheme !== 'https') return false;
    const listed = parsePageOrigin(entry.replace('://*.', '://wildcard.'));
    if (!listed || listed.port !== page.port) return false;
    if (entry.startsWith('https://*.')) {
      const base = listed.host.slice('wildcard.'.length);
      return page.host.endsWith(`.${base}`);
    }
    return listed.host === page.host;
  });
}

/**
 * True when a page on `hostname` (a host name without scheme or port, as Turnstile reports where a
 * token was solved) is one of `allowed`'s origins: an https origin, or http://localhost.
 */
export function hostnameAllowed(allowed: readonly string[], hostname: string): boolean {
  const host = hostname.toLowerCase();
  if (host === 'localhost') return allowed.includes(LOCALHOST_ORIGIN);
  const ports = new Set(
    allowed.map((entry) => parsePageOrigin(entry.replace('://*.', '://wildcard.'))?.port),
  );
  return [...ports].some((port) => originAllowed(allowed, `https://${host}${port ? `:${port}` : ''}`));
}

/** The longest page URL an Inquiry keeps. */
export const MAX_PAGE_URL_LENGTH = 2048;

/**
 * The page an Inquiry from a website keeps, from its `Referer`: an http(s) URL, without user
 * information, whose origin is one of `allowed` (the publishable key's origins), at most
 * {@link MAX_PAGE_URL_LENGTH} characters, its fragment dropped. Anything else (a `javascript:` or
 * `data:` URL, another site's page, a value that is not a URL) is no page: undefined. The page is
 * served back to the Tenant's console and integrators, who may render it as a link.
 */
export function allowedPageUrl(allowed: readonly string[], referer: string | undefined): string | undefined {
  if (!referer || referer.length > MAX_PAGE_URL_LENGTH) return undefined;
  let url: URL;
  try {
    url = new URL(referer);
  } catch {
    return undefined;
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return undefined;
  if (url.username !== '' || url.password !== '') return undefined;
  if (!originAllowed(allowed, url.origin)) return undefined;
  url.hash = '';
  return url.href.length <= MAX_PAGE_URL_LENGTH ? url.href : undefined;
}
