/**
 * The API reference as one self-contained HTML page: Redoc's standalone bundle (the `redoc` package
 * at the version of the lock file) and the OpenAPI document, both inlined, so the page renders
 * offline and no request leaves the machine. `npm run openapi` writes it to docs/reference.html;
 * `npm start` serves it at /docs.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

let bundle: string | undefined;

/** Redoc's standalone bundle, made safe to inline in a <script> element. */
function redocBundle(): string {
  // `<!--` and `</script` would change how the HTML parser reads a script element's text; the bundle
  // has them only inside regex literals, where `\x3C` means the same `<`.
  bundle ??= readFileSync(require.resolve('redoc/bundles/redoc.standalone.js'), 'utf8')
    .replaceAll('<!--', '\\x3C!--')
    .replaceAll('</script', '\\x3C/script')
    // The sidebar's "API docs by Redocly" badge loads its logo from Redocly's CDN: the page must
    // not reach out, so the image gets no address (its onError hides it; the link text stays).
    .replaceAll('"https://cdn.redoc.ly/redoc/logo-mini.svg"', '""');
  return bundle;
}

/** The guides of docs/, by audience: the reference page links each, `npm start` serves them. */
export const GUIDES = [
  { file: 'getting-started.md', title: 'Getting started', audience: 'integrators' },
  { file: 'listings.md', title: 'Listings', audience: 'integrators' },
  { file: 'photos.md', title: 'Photos', audience: 'integrators' },
  { file: 'leads.md', title: 'Leads', audience: 'integrators' },
  { file: 'events-and-webhooks.md', title: 'Events and webhooks', audience: 'integrators' },
  { file: 'site-api.md', title: 'Site API', audience: 'integrators' },
  { file: 'deploy.md', title: 'Deploy', audience: 'operators' },
  { file: 'operations.md', title: 'Operations', audience: 'operators' },
  { file: 'configuration.md', title: 'Configuration', audience: 'operators' },
  { file: 'architecture.md', title: 'Architecture', audience: 'contributors' },
  { file: 'testing.md', title: 'Testing', audience: 'contributors' },
  { file: 'bench.md', title: 'Bench', audience: 'contributors' },
] as const;

/** A bar of links to the guides, each `guidesBase` + its file name, grouped by audience. */
function guidesNav(guidesBase: string): string {
  const audiences = [...new Set(GUIDES.map((g) => g.audience))];
  const groups = audiences.map((audience) => {
    const links = GUIDES.filter((g) => g.audience === audience)
      .map((g) => `<a href="${guidesBase}${g.file}">${g.title}</a>`)
      .join(' · ');
    return `<span><b>${audience}</b>: ${links}</span>`;
  });
  return `<nav class="guides" aria-label="Guides">Guides for ${groups.join(' ')}</nav>`;
}

/** JSON that cannot end the script element it sits in (`<` as a JSON escape). */
function inlineJson(value: unknown): string {
  return JSON.stringify(value).replaceAll('<', '\\u003c');
}

/**
 * The reference page of `openapi` (deterministic: the same document gives the same page). Its guide
 * links are relative by default, right for docs/reference.html beside the guides; `npm start`
 * serves the guides under `guidesBase`.
 */
export function referencePageHtml(openapi: Record<string, unknown>, { guidesBase = '' } = {}): string {
  const title = String((openapi.info as { title?: string } | undefined)?.title ?? 'API reference');
  const options = {
    // System fonts: Redoc's defaults name web fonts that would be fetched from elsewhere.
    theme: {
      typography: {
        fontFamily: 'system-ui, -apple-system, "Segoe UI", Roboto, sans-serif',
        headings: { fontFamily: 'system-ui, -apple-system, "Segoe UI", Roboto, sans-serif' },
        code: { fontFamily: 'ui-monospace, SFMono-Regular, Menlo, Consolas, monospace' },
      },
    },
    expandResponses: '200,201',
    sortTagsAlphabetically: false,
    hideHostname: false,
  };
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title.replace(/[<&]/g, '')} reference</title>
<style>
body { margin: 0; padding: 0; }
nav.guides { font: 14px system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; padding: 8px 16px; border-bottom: 1px solid #ddd; display: flex; flex-wrap: wrap; gap: 4px 16px; }
</style>
</head>
<body>
${guidesNav(guidesBase)}
<div id="redoc"></div>
<script id="openapi" type="application/json">${inlineJson(openapi)}</script>
<script>${redocBundle()}</script>
<script>
Redoc.init(JSON.parse(document.getElementById('openapi').textContent), ${inlineJson(options)}, document.getElementById('redoc'));
</script>
</body>
</html>
`;
}
