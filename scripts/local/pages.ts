/**
 * What `npm start` serves besides the API: the API reference at /docs (Redoc, inlined, offline), the
 * guides of docs/ as text at /docs/guides/ (the reference page links them), and the example website
 * at /site/ (the files of examples/site as they are, with a config.js that names this stack's API and
 * the demo tenant's publishable key).
 */
import { readFileSync, statSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { extname, resolve, sep } from 'node:path';
import { GUIDES, referencePageHtml } from '../reference-page.ts';

const ROOT = resolve(import.meta.dirname, '../..');
const SITE_DIR = resolve(ROOT, 'examples/site');
const DOCS_DIR = resolve(ROOT, 'docs');
/** Where `npm start` serves the guides (the pages of docs/, as they are). */
export const GUIDES_PATH = '/docs/guides/';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
};

/** What the example site needs to know about the stack serving it (examples/site/config.js's shape). */
export interface SiteConfig {
  /** The API's base address: another origin than the page's, so the browser applies CORS. */
  apiBase: string;
  publishableKey: string;
  /** A Turnstile site key; null: the form sends the documented local dummy token. */
  turnstileSiteKey: string | null;
}

function send(res: ServerResponse, status: number, type: string, body: string | Buffer): true {
  res.writeHead(status, { 'Content-Type': type, 'Cache-Control': 'no-cache' });
  res.end(body);
  return true;
}

/** The config module the site imports, in place of the file's own defaults. */
export function siteConfigModule(config: SiteConfig): string {
  return `// Written by npm start for this local stack.\nexport default ${JSON.stringify(config, null, 2)};\n`;
}

/** A file of examples/site, or undefined for anything outside it or not a file. */
function siteFile(path: string): string | undefined {
  const relative = decodeURIComponent(path.slice('/site/'.length)) || 'index.html';
  const file = resolve(SITE_DIR, relative);
  if (!file.startsWith(SITE_DIR + sep)) return undefined;
  try {
    return statSync(file).isFile() ? file : undefined;
  } catch {
    return undefined;
  }
}

/** A Markdown page of docs/ (a guide or a page a guide links), or undefined for any other name. */
function guideFile(path: string): string | undefined {
  const name = path.slice(GUIDES_PATH.length);
  if (!/^[a-z][a-z0-9-]*\.md$/.test(name)) return undefined;
  const file = resolve(DOCS_DIR, name);
  try {
    return statSync(file).isFile() ? file : undefined;
  } catch {
    return undefined;
  }
}

/** The index of the guides: one link each, by audience. */
function guidesIndexHtml(): string {
  const items = GUIDES.map((g) => `<li>${g.audience}: <a href="${g.file}">${g.title}</a></li>`).join('\n');
  return `<!doctype html>\n<html lang="en">\n<head><meta charset="utf-8"><title>Guides</title></head>\n<body>\n<h1>Guides</h1>\n<p><a href="/docs">API reference</a></p>\n<ul>\n${items}\n</ul>\n</body>\n</html>\n`;
}

/**
 * The page handler for `startApiServer({ pages })`. `site()` is asked on every config.js request,
 * so the page always carries the stack's current key.
 */
export function localPages(options: { site: () => SiteConfig }) {
  let reference: string | undefined;
  return (req: IncomingMessage, res: ServerResponse, url: URL): boolean => {
    if (req.method !== 'GET' && req.method !== 'HEAD') return false;
    const path = url.pathname;
    if (path === '/docs' || path === '/docs/') {
      reference ??= referencePageHtml(JSON.parse(readFileSync(resolve(ROOT, 'docs/openapi.json'), 'utf8')), {
        guidesBase: GUIDES_PATH,
      });
      return send(res, 200, TYPES['.html'] as string, reference);
    }
    if (path === '/docs/openapi.json') {
      return send(res, 200, 'application/json', readFileSync(resolve(ROOT, 'docs/openapi.json')));
    }
    if (path === '/docs/guides') {
      res.writeHead(301, { Location: GUIDES_PATH }).end();
      return true;
    }
    if (path === GUIDES_PATH) return send(res, 200, TYPES['.html'] as string, guidesIndexHtml());
    if (path.startsWith(GUIDES_PATH)) {
      const file = guideFile(path);
      // Markdown shown as text: a browser displays it instead of offering a download.
      if (file) return send(res, 200, 'text/plain; charset=utf-8', readFileSync(file));
      return send(res, 404, 'text/plain; charset=utf-8', 'Not found');
    }
    if (path === '/site') {
      res.writeHead(301, { Location: '/site/' }).end();
      return true;
    }
    if (!path.startsWith('/site/')) return false;
    if (path === '/site/config.js') {
      return send(res, 200, TYPES['.js'] as string, siteConfigModule(options.site()));
    }
    let file: string | undefined;
    try {
      file = siteFile(path);
    } catch {
      file = undefined; // an undecodable path names no file
    }
    const type = file ? TYPES[extname(file)] : undefined;
    if (file && type) return send(res, 200, type, readFileSync(file));
    return send(res, 404, 'text/plain; charset=utf-8', 'Not found');
  };
}
