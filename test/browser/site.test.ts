/**
 * The example website (examples/site) and the reference page, in a real Chromium driven through
 * puppeteer-core, against `npm start` as a user runs it: the site on http://localhost:PORT/site/
 * calls the API on http://127.0.0.1:PORT (another origin), so every read goes through the
 * browser's CORS checks. Screenshots land in test-results/browser/.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import puppeteer, { type Browser, type Page } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EVENT_TYPES } from '../../functions/domain/events.ts';
import { routes } from '../../functions/routes.ts';
import { SAMPLE_LISTINGS, sampleText } from '../../scripts/local/demo-catalogue.ts';
import { PHOTO_HEIGHT, PHOTO_WIDTH } from '../../scripts/local/demo-photos.ts';
import { runAdminCli } from '../support/cli.ts';
import { type LocalStack, startLocalStack } from '../support/local-stack.ts';
import { findChromium, NO_CHROMIUM } from './chromium.ts';

const chromium = findChromium();
if (!chromium) console.warn(NO_CHROMIUM);

const SHOTS = resolve(import.meta.dirname, '../../test-results/browser');
/** A host name of "another website": Chromium resolves it to this machine, nothing else does. */
const OTHER_SITE = 'other-site.test';
const LOCAL_HOSTS = new Set(['localhost', '127.0.0.1', OTHER_SITE]);

const THEME = {
  colors: { primary: '#7a1f5c', accent: '#e0a030', background: '#fffdf8', text: '#222222' },
  fonts: { heading: 'Georgia', body: 'Verdana' },
  corner_style: 'pill',
  show_powered_by: true,
};

let stack: LocalStack;
let browser: Browser;
let secretKey: string;
let siteUrl: string;
const started = Date.now();
/** Every request the browser made, for the "nothing leaves the machine" checks. */
const requested: string[] = [];

async function secretApi(path: string): Promise<any> {
  const res = await fetch(stack.url + path, { headers: { authorization: `Bearer ${secretKey}` } });
  expect(res.status, path).toBe(200);
  return res.json();
}

async function open(url: string): Promise<Page> {
  const page = await browser.newPage();
  await page.setViewport({ width: 1280, height: 900 });
  page.on('request', (request) => requested.push(request.url()));
  await page.goto(url, { waitUntil: 'domcontentloaded' });
  return page;
}

/** Waits until the site has finished loading its current view. */
async function settled(page: Page): Promise<void> {
  await page.waitForFunction("document.body.dataset.ready && document.body.dataset.loading === 'false'", {
    timeout: 30_000,
  });
}

async function shot(page: Page, name: string, fullPage = true): Promise<void> {
  await page.screenshot({ path: `${SHOTS}/${name}.png`, fullPage });
}

const texts = (page: Page, selector: string) =>
  page.$$eval(selector, (elements) => elements.map((e) => (e.textContent ?? '').trim()));

beforeAll(async () => {
  if (!chromium) return;
  mkdirSync(SHOTS, { recursive: true });
  stack = await startLocalStack();
  // Chromium starts while the demo catalogue is written (seconds each on a loaded machine).
  const launching = puppeteer.launch({
    executablePath: chromium,
    headless: true,
    args: [
      // root in a container has no user namespace for Chromium's sandbox
      '--no-sandbox',
      '--disable-dev-shm-usage',
      `--host-resolver-rules=MAP ${OTHER_SITE} 127.0.0.1`,
    ],
  });
  try {
    await catalogueAndTheme();
  } finally {
    // Kept even when the set-up failed, so that afterAll closes it.
    browser = await launching;
  }
}, 500_000);

/** Waits for the demo catalogue, reads the demo's keys and sets the agency's theme meanwhile. */
async function catalogueAndTheme(): Promise<void> {
  // The agency's theme, set as ops set it: the site must show it. The demo tenant exists once the
  // stack is ready, so the admin command runs while the catalogue is written.
  const themeFile = join(mkdtempSync(join(tmpdir(), 'lls-theme-')), 'theme.json');
  writeFileSync(themeFile, JSON.stringify(THEME));
  const setting = runAdminCli(stack.env, 'theme', 'set', '--tenant', 'demo', '--file', themeFile);
  setting.catch(() => undefined); // awaited below; not unhandled if the wait below throws first
  // The demo catalogue is written right after start-up: wait for it (bounded).
  const deadline = Date.now() + 240_000;
  while (!/Demo catalogue: \d+ listings written/.test(stack.output())) {
    if (Date.now() > deadline) throw new Error(`no demo catalogue within 240 s:\n${stack.output()}`);
    await new Promise((r) => setTimeout(r, 500));
  }
  secretKey = /demo-full-access\s+(svc_live_[A-Za-z0-9_-]+)/.exec(stack.output())?.[1] as string;
  expect(secretKey, stack.output()).toBeDefined();
  siteUrl = /Example website: (http:\/\/localhost:\d+\/site\/)/.exec(stack.output())?.[1] as string;
  expect(siteUrl, stack.output()).toBeDefined();
  const set = await setting;
  expect(set.code, set.stderr).toBe(0);
}

afterAll(async () => {
  await browser?.close();
  await stack?.stop();
  if (chromium)
    console.info(`browser tests: ${((Date.now() - started) / 1000).toFixed(1)} s including npm start`);
}, 60_000);

describe.skipIf(!chromium)('the example website in Chromium', () => {
  it('shows the demo catalogue with the theme, filters it and pages through it', async () => {
    // Act
    const page = await open(siteUrl);
    await settled(page);
    await shot(page, '1-grid');
    // Assess: the catalogue, with the Tenant's theme applied
    expect(await page.$eval('#result-count', (e) => e.getAttribute('data-total'))).toBe(
      String(SAMPLE_LISTINGS.length),
    );
    expect(await page.$$('#grid .card')).toHaveLength(12);
    expect(await page.$eval('#status', (e) => e.hasAttribute('hidden'))).toBe(true);
    const looks = await page.evaluate(`(() => {
      const header = getComputedStyle(document.querySelector('.site-header'));
      const button = getComputedStyle(document.querySelector('#filters button'));
      return { header: header.backgroundColor, radius: button.borderTopLeftRadius,
        heading: getComputedStyle(document.querySelector('h3')).fontFamily,
        badge: !document.getElementById('powered-by').hidden };
    })()`);
    expect(looks).toEqual({
      header: 'rgb(122, 31, 92)',
      radius: '999px',
      heading: expect.stringMatching(/^"?Georgia/),
      badge: true,
    });

    // Act: the second page, by offset
    await page.click('.page-link[data-rel="next"] a');
    await settled(page);
    // Assess
    expect(await page.$$('#grid .card')).toHaveLength(SAMPLE_LISTINGS.length - 12);
    expect(page.url()).toContain('offset=12');

    // Act: rent, at least 3 bedrooms
    await page.goto(siteUrl);
    await settled(page);
    await page.select('select[name="listing_type"]', 'rent');
    await page.type('input[name="beds"]', '3');
    await Promise.all([page.click('#filters button[type="submit"]')]);
    await settled(page);
    await shot(page, '2-filtered');
    // Assess: exactly the catalogue's rentals with 3 or more bedrooms
    const expected = SAMPLE_LISTINGS.filter((s) => s.listing === 'rent' && s.beds >= 3).map(
      (s) => sampleText(s, s.written === 'en' ? 'en' : s.also.includes('en') ? 'en' : s.written).title,
    );
    const titles = await texts(page, '#grid .card h3');
    expect(titles.sort()).toEqual(expected.sort());
  }, 120_000);

  it('opens a listing by slug, counts one view, and switches locale', async () => {
    // Prepare
    const villa = SAMPLE_LISTINGS[0]!; // the dearest sale: first by price, high to low
    const page = await open(`${siteUrl}?listing_type=sale&sort=price_desc`);
    await settled(page);
    const views = () => requested.filter((u) => /\/v1\/site\/properties\/[^/]+\/view\?/.test(u)).length;
    const viewsBefore = views();
    // Act
    const card = await page.waitForSelector(
      `xpath/.//article[.//h3[normalize-space()="${sampleText(villa, 'en').title}"]]//a`,
    );
    await card?.click();
    await settled(page);
    await shot(page, '3-listing');
    // Assess
    expect(page.url()).toMatch(/\?listing=6-bedroom-villa-with-sea-view-in-golden-mile/);
    expect(await page.$eval('#listing h1', (e) => e.textContent)).toBe(sampleText(villa, 'en').title);
    expect(await texts(page, '#agent a')).toHaveLength(1);
    expect((await texts(page, '.amenity-list li')).length).toBe(villa.amenities.length);
    await page.reload();
    await settled(page);
    expect(views() - viewsBefore).toBe(1); // a reload in the same visit is not a second view

    // Act: Spanish
    await page.select('#locale', 'es');
    await settled(page);
    await shot(page, '4-listing-es');
    // Assess
    expect(await page.$eval('#listing h1', (e) => e.textContent)).toBe(sampleText(villa, 'es').title);
    expect(await page.$eval('[data-nav="agents"][data-text]', (e) => e.textContent)).toBe('Agentes');
    expect(page.url()).toContain('lang=es');
  }, 90_000);

  it('lists the agents', async () => {
    const page = await open(siteUrl);
    await settled(page);
    await page.click('nav [data-nav="agents"]');
    await settled(page);
    await shot(page, '5-agents');
    expect((await texts(page, '#agents .agent-card h3')).sort()).toEqual([
      'Ana García',
      'Lars Jensen',
      'Sofia Costa',
    ]);
  }, 60_000);

  it('sends an inquiry that the secret API then lists, from the website', async () => {
    // Prepare
    const villa = SAMPLE_LISTINGS[0]!;
    const page = await open(`${siteUrl}?listing_type=sale&sort=price_desc`);
    await settled(page);
    const card = await page.waitForSelector(
      `xpath/.//article[.//h3[normalize-space()="${sampleText(villa, 'en').title}"]]//a`,
    );
    await card?.click();
    await settled(page);
    const propertyId = await page.$eval('#listing', (e) => e.getAttribute('data-id'));
    // Act
    await page.type('#inquiry input[name="name"]', 'Browser Visitor');
    await page.type('#inquiry input[name="email"]', 'visitor@example.com');
    await page.type('#inquiry textarea[name="message"]', 'Is the villa still available in June?');
    await page.click('#inquiry button[type="submit"]');
    const sent = await page.waitForSelector('.form-result.sent', { timeout: 30_000 });
    await shot(page, '6-inquiry-sent');
    const inquiryId = await sent?.evaluate((e) => e.getAttribute('data-inquiry-id'));
    // Assess
    const inquiries = await secretApi(`/v1/inquiries?property_id=${propertyId}`);
    const inquiry = inquiries.data.find((i: { id: string }) => i.id === inquiryId);
    expect(inquiry).toMatchObject({
      property_id: propertyId,
      message: 'Is the villa still available in June?',
    });
    expect(inquiry.via).toBe('widget');
    expect(inquiry.page_url).toContain('/site/?listing=');
    const lead = await secretApi(`/v1/leads/${inquiry.lead_id}`);
    expect(lead).toMatchObject({ email: 'visitor@example.com', name: 'Browser Visitor', source: 'widget' });
  }, 90_000);

  it('shows the photos drawn at first start, which the browser decodes', async () => {
    // Prepare: the first start draws the catalogue's photos after start-up, the villa's first
    const villa = SAMPLE_LISTINGS[0]!;
    const page = await open(`${siteUrl}?listing_type=sale&sort=price_desc`);
    await settled(page);
    const slug = await page.$eval('#grid .card', (e) => e.getAttribute('data-slug'));
    const deadline = Date.now() + 120_000;
    let listing: { images: { url: string; is_primary: boolean }[] } | undefined;
    while (Date.now() < deadline) {
      const found = (await secretApi('/v1/properties?limit=200')).data.find(
        (p: { slug: string }) => p.slug === slug,
      );
      if (found?.images.length === 3) {
        listing = found;
        break;
      }
      await new Promise((r) => setTimeout(r, 1000));
    }
    expect(listing, 'the featured villa gets three photos').toBeDefined();
    // Act
    await page.goto(`${siteUrl}?listing=${slug}`);
    await settled(page);
    await page.waitForFunction(
      "[...document.querySelectorAll('.gallery img')].length === 3 && [...document.querySelectorAll('.gallery img')].every((i) => i.complete)",
      { timeout: 30_000 },
    );
    await shot(page, '6b-photos');
    // Assess: real images, decoded at the size they were drawn. Each file shown is decoded on its
    // own: an image picked from a srcset reports its size scaled to the width `sizes` gave it.
    const decodeEachFile = `Promise.all([...document.querySelectorAll('.gallery img')].map(async (shown) => {
      const file = new Image();
      file.src = shown.currentSrc;
      await file.decode();
      return [file.naturalWidth, file.naturalHeight];
    }))`;
    const sizes = (await page.evaluate(decodeEachFile)) as number[][];
    expect(sizes).toEqual([
      [PHOTO_WIDTH, PHOTO_HEIGHT],
      [PHOTO_WIDTH, PHOTO_HEIGHT],
      [PHOTO_WIDTH, PHOTO_HEIGHT],
    ]);
    expect(listing?.images.filter((i) => i.is_primary)).toHaveLength(1);
    expect(villa.featured).toBe(true);
  }, 180_000);

  it('is refused by the browser when loaded from a site the key does not allow (CORS)', async () => {
    // Act: the same files, from another origin
    const page = await open(siteUrl.replace('localhost', OTHER_SITE));
    await page.waitForFunction("document.body.dataset.ready === 'error'", { timeout: 30_000 });
    await shot(page, '7-other-origin');
    // Assess: the page got nothing, and the browser itself blocked the read
    expect(await page.$$('.card')).toHaveLength(0);
    expect(await page.$eval('#status', (e) => e.textContent)).toMatch(/could not be reached/);
    const { apiBase, key } = (await page.evaluate(
      "import('./config.js').then((m) => ({ apiBase: m.default.apiBase, key: m.default.publishableKey }))",
    )) as { apiBase: string; key: string };
    const outcome = await page.evaluate(
      (url) =>
        fetch(url).then(
          (r) => `answered ${r.status}`,
          (e: Error) => e.name,
        ),
      `${apiBase}/v1/site/properties?key=${key}&origin=${encodeURIComponent(`http://${OTHER_SITE}:${new URL(siteUrl).port}`)}`,
    );
    expect(outcome).toBe('TypeError');
    // ...while the API did answer: 403 without CORS headers
    const direct = await fetch(`${apiBase}/v1/site/properties?key=${key}`, {
      headers: { origin: `http://${OTHER_SITE}:${new URL(siteUrl).port}` },
    });
    expect(direct.status).toBe(403);
    expect(direct.headers.get('access-control-allow-origin')).toBeNull();
  }, 60_000);
});

describe.skipIf(!chromium)('the API reference page in Chromium', () => {
  it('renders every route of the route table and every webhook, with no request leaving the machine', async () => {
    // Act
    const first = requested.length;
    const page = await open(`${stack.url}/docs`);
    await page.waitForSelector('[id^="tag/"], [id*="operation/"]', { timeout: 60_000 });
    await shot(page, '8-reference', false); // the whole page is tens of thousands of pixels tall
    // Assess: Redoc gives each operation an anchor with its operationId
    const anchors = new Set(
      await page.$$eval('[id*="operation/"], [id*="webhook/"]', (elements) => elements.map((e) => e.id)),
    );
    const text = (await page.evaluate('document.body.textContent')) as string;
    for (const route of routes) {
      expect(
        [...anchors].some((id) => id.endsWith(`/${route.operationId}`)),
        route.operationId,
      ).toBe(true);
      expect(text, route.summary).toContain(route.summary);
    }
    for (const type of EVENT_TYPES) expect(text, type).toContain(`${type}:`);
    console.info(`reference page: ${anchors.size} anchors, ${routes.length} routes`);
    const outside = requested.slice(first).filter((url) => {
      const { protocol, hostname } = new URL(url);
      return !['data:', 'blob:', 'about:'].includes(protocol) && !LOCAL_HOSTS.has(hostname);
    });
    expect(outside).toEqual([]);
  }, 180_000);

  it('the website made no request outside this machine either', () => {
    const outside = requested.filter((url) => {
      const { protocol, hostname } = new URL(url);
      return !['data:', 'blob:', 'about:'].includes(protocol) && !LOCAL_HOSTS.has(hostname);
    });
    expect(requested.length).toBeGreaterThan(10);
    expect(outside).toEqual([]);
  });
});
