// A website on the Listings & Leads site API, with a publishable key only: the listing grid with
// filters, a listing page, the agents page, the locale switch and an inquiry form, themed by the
// Tenant's GET /v1/theme. No build step, no framework; pages are query strings of one index.html
// (?listing=<slug>, ?page=agents), so any static host serves it.
import config from './config.js';

/** Cloudflare's documented dummy token: accepted only where no Turnstile secret is configured. */
const DUMMY_TURNSTILE_TOKEN = 'XXXX.DUMMY.TOKEN.XXXX';
const PAGE_SIZE = 12;

const TEXTS = {
  en: {
    'nav.listings': 'Listings',
    'nav.agents': 'Agents',
    'nav.language': 'Language',
    'footer.powered': 'Powered by Listings & Leads',
    'filter.listing': 'For',
    'filter.any': 'Any',
    'filter.sale': 'Sale',
    'filter.rent': 'Rent',
    'filter.location': 'Location',
    'filter.type': 'Type',
    'filter.min': 'Min price',
    'filter.max': 'Max price',
    'filter.beds': 'Bedrooms (min)',
    'filter.amenities': 'Amenities',
    'filter.sort': 'Sort',
    'filter.apply': 'Search',
    'filter.reset': 'Reset',
    'sort.newest': 'Newest',
    'sort.price_asc': 'Price, low to high',
    'sort.price_desc': 'Price, high to low',
    'grid.count': '{from}–{to} of {total}',
    'grid.none': 'No listings match these filters.',
    'grid.prev': 'Previous',
    'grid.next': 'Next',
    'grid.featured': 'Featured',
    'listing.beds': '{n} bedrooms',
    'listing.bed': '1 bedroom',
    'listing.baths': '{n} bathrooms',
    'listing.area': '{n} m²',
    'listing.month': '/ month',
    'listing.highlights': 'Highlights',
    'listing.amenities': 'Amenities',
    'listing.agent': 'Your agent',
    'listing.similar': 'Similar listings',
    'listing.back': 'All listings',
    'listing.nophoto': 'No photo yet',
    'listing.notfound': 'This listing is no longer available.',
    'listing.untranslated': 'Shown in its original language.',
    'agents.title': 'Our agents',
    'agents.listings': '{n} listings',
    'form.title': 'Ask about this listing',
    'form.general': 'Get in touch',
    'form.name': 'Name',
    'form.email': 'Email',
    'form.message': 'Message',
    'form.send': 'Send',
    'form.sending': 'Sending…',
    'form.sent': 'Thank you: your message was sent. We will be in touch soon.',
    'form.failed': 'Your message could not be sent ({status}).',
    'error.unreachable': 'The listings service could not be reached from this page.',
    'error.nokey': 'No publishable key is set: fill in publishableKey in config.js.',
  },
  es: {
    'nav.listings': 'Inmuebles',
    'nav.agents': 'Agentes',
    'nav.language': 'Idioma',
    'footer.powered': 'Con la tecnología de Listings & Leads',
    'filter.listing': 'En',
    'filter.any': 'Todos',
    'filter.sale': 'Venta',
    'filter.rent': 'Alquiler',
    'filter.location': 'Zona',
    'filter.type': 'Tipo',
    'filter.min': 'Precio mín.',
    'filter.max': 'Precio máx.',
    'filter.beds': 'Dormitorios (mín.)',
    'filter.amenities': 'Características',
    'filter.sort': 'Orden',
    'filter.apply': 'Buscar',
    'filter.reset': 'Borrar',
    'sort.newest': 'Más recientes',
    'sort.price_asc': 'Precio, de menor a mayor',
    'sort.price_desc': 'Precio, de mayor a menor',
    'grid.count': '{from}–{to} de {total}',
    'grid.none': 'Ningún inmueble cumple estos filtros.',
    'grid.prev': 'Anterior',
    'grid.next': 'Siguiente',
    'grid.featured': 'Destacado',
    'listing.beds': '{n} dormitorios',
    'listing.bed': '1 dormitorio',
    'listing.baths': '{n} baños',
    'listing.area': '{n} m²',
    'listing.month': '/ mes',
    'listing.highlights': 'Lo más destacado',
    'listing.amenities': 'Características',
    'listing.agent': 'Su agente',
    'listing.similar': 'Inmuebles similares',
    'listing.back': 'Todos los inmuebles',
    'listing.nophoto': 'Aún sin foto',
    'listing.notfound': 'Este inmueble ya no está disponible.',
    'listing.untranslated': 'Se muestra en su idioma original.',
    'agents.title': 'Nuestros agentes',
    'agents.listings': '{n} inmuebles',
    'form.title': 'Pregunte por este inmueble',
    'form.general': 'Contacte con nosotros',
    'form.name': 'Nombre',
    'form.email': 'Correo electrónico',
    'form.message': 'Mensaje',
    'form.send': 'Enviar',
    'form.sending': 'Enviando…',
    'form.sent': 'Gracias: su mensaje se ha enviado. Le responderemos pronto.',
    'form.failed': 'No se pudo enviar su mensaje ({status}).',
    'error.unreachable': 'No se pudo acceder al servicio de inmuebles desde esta página.',
    'error.nokey': 'Falta la clave publicable: rellene publishableKey en config.js.',
  },
  de: {
    'nav.listings': 'Immobilien',
    'nav.agents': 'Makler',
    'nav.language': 'Sprache',
    'footer.powered': 'Betrieben mit Listings & Leads',
    'filter.listing': 'Zum',
    'filter.any': 'Alle',
    'filter.sale': 'Kauf',
    'filter.rent': 'Mieten',
    'filter.location': 'Ort',
    'filter.type': 'Art',
    'filter.min': 'Preis ab',
    'filter.max': 'Preis bis',
    'filter.beds': 'Schlafzimmer (min.)',
    'filter.amenities': 'Ausstattung',
    'filter.sort': 'Sortierung',
    'filter.apply': 'Suchen',
    'filter.reset': 'Zurücksetzen',
    'sort.newest': 'Neueste',
    'sort.price_asc': 'Preis aufsteigend',
    'sort.price_desc': 'Preis absteigend',
    'grid.count': '{from}–{to} von {total}',
    'grid.none': 'Keine Immobilie passt zu diesen Filtern.',
    'grid.prev': 'Zurück',
    'grid.next': 'Weiter',
    'grid.featured': 'Empfohlen',
    'listing.beds': '{n} Schlafzimmer',
    'listing.bed': '1 Schlafzimmer',
    'listing.baths': '{n} Bäder',
    'listing.area': '{n} m²',
    'listing.month': '/ Monat',
    'listing.highlights': 'Highlights',
    'listing.amenities': 'Ausstattung',
    'listing.agent': 'Ihr Makler',
    'listing.similar': 'Ähnliche Immobilien',
    'listing.back': 'Alle Immobilien',
    'listing.nophoto': 'Noch kein Foto',
    'listing.notfound': 'Diese Immobilie ist nicht mehr verfügbar.',
    'listing.untranslated': 'In der Originalsprache angezeigt.',
    'agents.title': 'Unsere Makler',
    'agents.listings': '{n} Immobilien',
    'form.title': 'Fragen Sie nach dieser Immobilie',
    'form.general': 'Kontakt',
    'form.name': 'Name',
    'form.email': 'E-Mail',
    'form.message': 'Nachricht',
    'form.send': 'Senden',
    'form.sending': 'Wird gesendet…',
    'form.sent': 'Danke: Ihre Nachricht wurde gesendet. Wir melden uns bald.',
    'form.failed': 'Ihre Nachricht konnte nicht gesendet werden ({status}).',
    'error.unreachable': 'Der Immobiliendienst ist von dieser Seite aus nicht erreichbar.',
    'error.nokey': 'Kein Publishable Key gesetzt: publishableKey in config.js eintragen.',
  },
};

const state = { theme: null, locale: 'en' };

/** The page's text in the current locale (English where the site has no translation). */
function t(key, values = {}) {
  const text = (TEXTS[state.locale] ?? TEXTS.en)[key] ?? TEXTS.en[key] ?? key;
  return text.replace(/\{(\w+)\}/g, (_, name) => String(values[name] ?? ''));
}

/** Builds an element; text is always set as text (listing content is never parsed as HTML). */
function h(tag, attributes = {}, ...children) {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === undefined || value === null || value === false) continue;
    if (name.startsWith('on')) element.addEventListener(name.slice(2), value);
    else element.setAttribute(name, value === true ? '' : String(value));
  }
  for (const child of children.flat()) {
    if (child === undefined || child === null || child === false) continue;
    element.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return element;
}

class ApiError extends Error {
  constructor(status, body) {
    super(`The API answered ${status}`);
    this.status = status;
    this.body = body;
  }
}

/** A site API call: the publishable key, this page's origin and the locale on every request. */
async function api(path, query = {}, init = {}) {
  const url = new URL(config.apiBase + path);
  const params = { key: config.publishableKey, origin: location.origin, locale: state.locale, ...query };
  for (const [name, value] of Object.entries(params)) {
    if (value !== undefined && value !== null && value !== '') url.searchParams.set(name, String(value));
  }
  // A browser refuses the answer when the key does not allow this origin (no CORS headers): fetch
  // then rejects with a TypeError, shown as "could not be reached".
  const response = await fetch(url, init);
  const body = response.status === 204 ? null : await response.json().catch(() => null);
  if (!response.ok) throw new ApiError(response.status, body);
  return body;
}

function showStatus(message, kind = 'error') {
  const status = document.getElementById('status');
  status.textContent = message;
  status.dataset.kind = kind;
  status.hidden = !message;
}

function money(amount, currency) {
  if (amount === null || amount === undefined) return '';
  const value = Number(amount);
  if (!currency) return value.toLocaleString(state.locale);
  return new Intl.NumberFormat(state.locale, {
    style: 'currency',
    currency,
    maximumFractionDigits: 0,
  }).format(value);
}

function priceOf(listing) {
  if (listing.listing_type === 'rent' && listing.rent_price !== null)
    return `${money(listing.rent_price, listing.currency)} ${t('listing.month')}`;
  return money(listing.price ?? listing.rent_price, listing.currency);
}

// ---------------------------------------------------------------------------------------------
// Photos

/**
 * How wide each photo is drawn, for the `sizes` attribute: a browser picks its file from `srcset`
 * before it lays the page out, so the page must say how wide the photo will be. These follow
 * style.css: `main` is at most 1200 px wide with 24 px of padding a side (1152 px of content); the
 * card grid has columns of at least 260 px with 20 px gaps (4 columns from 1148 px, 3 from 868 px, 2
 * from 588 px), and a card's photo is its column less the card's 1 px border a side; the gallery has
 * columns of at least 300 px with 8 px gaps (3 from 964 px, 2 from 656 px). Change them with the CSS.
 * `columns` is how many photos the first row holds (loaded at once).
 */
const CARD_LAYOUT = [
  { minWidth: 1200, columns: 4, width: '271px' }, // (1152 − 3 gaps of 20) / 4 − 2
  { minWidth: 1148, columns: 4, width: 'calc((100vw - 116px) / 4)' },
  { minWidth: 868, columns: 3, width: 'calc((100vw - 94px) / 3)' },
  { minWidth: 588, columns: 2, width: 'calc((100vw - 72px) / 2)' },
  { minWidth: 0, columns: 1, width: 'calc(100vw - 50px)' },
];
const GALLERY_LAYOUT = [
  { minWidth: 1200, columns: 3, width: '379px' }, // (1152 − 2 gaps of 8) / 3
  { minWidth: 964, columns: 3, width: 'calc((100vw - 64px) / 3)' },
  { minWidth: 656, columns: 2, width: 'calc((100vw - 56px) / 2)' },
  { minWidth: 0, columns: 1, width: 'calc(100vw - 48px)' },
];

function sizesOf(layout) {
  return layout
    .map((row) => (row.minWidth ? `(min-width: ${row.minWidth}px) ${row.width}` : row.width))
    .join(', ');
}

/** How many photos the first row of `layout` holds at this window's width. */
function firstRowOf(layout) {
  return layout.find((row) => matchMedia(`(min-width: ${row.minWidth}px)`).matches)?.columns ?? 1;
}

/**
 * A photo the page can show: ready, with a file. The site API lists ready photos only; an image
 * still processing (no url, no renditions yet) is left out here too rather than drawn broken.
 */
function shown(image) {
  return Boolean(image?.url) && (image.status ?? 'ready') === 'ready';
}

/** The cover photo, when the listing has one to show. */
function coverOf(listing) {
  const images = (Array.isArray(listing.images) ? listing.images : []).filter(shown);
  return images.find((image) => image.is_primary) ?? images[0] ?? null;
}

/** `srcset` from renditions of one type: `url 640w, …`. */
function srcsetOf(renditions) {
  return renditions.map((r) => `${r.url} ${r.width}w`).join(', ');
}

/** Modern formats, best first: each a <source> that a browser without it skips. */
const MODERN_TYPES = ['image/avif', 'image/webp'];

/**
 * A photo from its renditions. A <picture>: one <source> per modern format (WebP) with its widths,
 * then an <img> of the JPEG, which is the image's default `url`. Not a single srcset on the <img>:
 * a browser picks from srcset by width alone, never by type, so a browser without WebP handed a WebP
 * srcset would show nothing; it skips a <source type="image/webp"> instead and loads the JPEG.
 * `width` and `height` are the JPEG's (every rendition has the photo's proportions): the browser
 * reserves the box before any file arrives, so nothing moves when it does. Photos below the first
 * row wait until they near the screen (`loading="lazy"`).
 */
function photo(image, alt, className, { sizes, eager = false } = {}) {
  if (!shown(image)) return h('div', { class: `${className} no-photo` }, t('listing.nophoto'));
  const renditions = Array.isArray(image.renditions) ? image.renditions : [];
  const ofType = (type) => renditions.filter((r) => r.type === type);
  const jpeg = ofType('image/jpeg');
  const img = h('img', {
    class: className,
    src: image.url,
    srcset: jpeg.length ? srcsetOf(jpeg) : null,
    sizes: jpeg.length ? sizes : null,
    width: image.width,
    height: image.height,
    alt,
    loading: eager ? 'eager' : 'lazy',
    decoding: 'async',
  });
  const sources = MODERN_TYPES.filter((type) => ofType(type).length).map((type) =>
    h('source', { type, srcset: srcsetOf(ofType(type)), sizes }),
  );
  // A photo stored before renditions existed has none: its one file, as it is.
  return sources.length ? h('picture', { class: 'photo' }, sources, img) : img;
}

function link(params, ...children) {
  const query = new URLSearchParams({ ...params, ...(state.locale ? { lang: state.locale } : {}) });
  return h('a', { href: `?${query}`, onclick: navigate }, ...children);
}

function navigate(event) {
  if (event.metaKey || event.ctrlKey || event.shiftKey) return;
  event.preventDefault();
  history.pushState(null, '', event.currentTarget.getAttribute('href'));
  render();
}

function bedrooms(listing) {
  if (!listing.bedrooms) return null;
  return listing.bedrooms === 1 ? t('listing.bed') : t('listing.beds', { n: listing.bedrooms });
}

/** A listing's card; `eager` for a card of the first row, on screen at once. */
function card(listing, eager = false) {
  return h(
    'article',
    { class: 'card', 'data-slug': listing.slug },
    link(
      { listing: listing.slug },
      photo(coverOf(listing), listing.title, 'card-photo', { sizes: sizesOf(CARD_LAYOUT), eager }),
      listing.is_featured ? h('span', { class: 'badge' }, t('grid.featured')) : null,
      h('h3', {}, listing.title),
    ),
    h('p', { class: 'price' }, priceOf(listing)),
    h(
      'p',
      { class: 'facts' },
      [
        listing.place?.short,
        bedrooms(listing),
        listing.area ? t('listing.area', { n: Number(listing.area) }) : null,
      ]
        .filter(Boolean)
        .join(' · '),
    ),
  );
}

// ---------------------------------------------------------------------------------------------
// The listing grid

/** The grid's filters as they are in the address bar. */
function filtersFromUrl() {
  const params = new URLSearchParams(location.search);
  const pick = (name) => params.get(name) ?? '';
  return {
    listing: pick('listing_type'),
    location: pick('location'),
    type: pick('type'),
    min_price: pick('min_price'),
    max_price: pick('max_price'),
    beds: pick('beds'),
    amenities: pick('amenities'),
    sort: pick('sort') || 'newest',
    offset: Number(pick('offset') || 0),
  };
}

function select(name, label, options, value) {
  return h(
    'label',
    {},
    h('span', {}, label),
    h(
      'select',
      { name },
      options.map(([v, text]) => h('option', { value: v, selected: v === value }, text)),
    ),
  );
}

function number(name, label, value) {
  return h(
    'label',
    {},
    h('span', {}, label),
    h('input', { name, type: 'number', min: 0, inputmode: 'numeric', value }),
  );
}

async function renderGrid(app) {
  const filters = filtersFromUrl();
  const [locations, amenities, page] = await Promise.all([
    api('/v1/site/locations'),
    api('/v1/site/amenities'),
    api('/v1/site/properties', { ...filters, limit: PAGE_SIZE }),
  ]);
  const chosen = new Set(filters.amenities.split(',').filter(Boolean));
  const places = locations.items.filter((l) => l.kind !== 'property_type');
  const types = locations.items.filter((l) => l.kind === 'property_type');
  const form = h(
    'form',
    { class: 'filters', id: 'filters', onsubmit: applyFilters },
    select(
      'listing_type',
      t('filter.listing'),
      [
        ['', t('filter.any')],
        ['sale', t('filter.sale')],
        ['rent', t('filter.rent')],
      ],
      filters.listing,
    ),
    select(
      'location',
      t('filter.location'),
      [['', t('filter.any')], ...places.map((l) => [l.slug, `${l.name} (${l.count})`])],
      filters.location,
    ),
    select(
      'type',
      t('filter.type'),
      [['', t('filter.any')], ...types.map((l) => [l.name, `${l.name} (${l.count})`])],
      filters.type,
    ),
    number('min_price', t('filter.min'), filters.min_price),
    number('max_price', t('filter.max'), filters.max_price),
    number('beds', t('filter.beds'), filters.beds),
    select(
      'sort',
      t('filter.sort'),
      ['newest', 'price_asc', 'price_desc'].map((s) => [s, t(`sort.${s}`)]),
      filters.sort,
    ),
    h(
      'details',
      { class: 'amenities', open: chosen.size > 0 },
      h('summary', {}, `${t('filter.amenities')}${chosen.size ? ` (${chosen.size})` : ''}`),
      amenities.items.map((a) =>
        h(
          'label',
          { class: 'check' },
          h('input', { type: 'checkbox', name: 'amenity', value: a.code, checked: chosen.has(a.code) }),
          a.label,
        ),
      ),
    ),
    h(
      'div',
      { class: 'actions' },
      h('button', { type: 'submit' }, t('filter.apply')),
      link({}, t('filter.reset')),
    ),
  );
  const from = page.total ? filters.offset + 1 : 0;
  const to = filters.offset + page.items.length;
  const pager = h(
    'nav',
    { class: 'pager' },
    h(
      'span',
      { id: 'result-count', 'data-total': page.total },
      page.total ? t('grid.count', { from, to, total: page.total }) : '',
    ),
    filters.offset > 0 ? pageLink(filters, filters.offset - PAGE_SIZE, t('grid.prev'), 'prev') : null,
    to < page.total ? pageLink(filters, filters.offset + PAGE_SIZE, t('grid.next'), 'next') : null,
  );
  // The first row of cards is on screen at once: loaded at once; the others lazily.
  const firstRow = firstRowOf(CARD_LAYOUT);
  app.replaceChildren(
    form,
    pager,
    page.items.length
      ? h(
          'section',
          { class: 'grid', id: 'grid' },
          page.items.map((listing, i) => card(listing, i < firstRow)),
        )
      : h('p', { class: 'empty', id: 'grid' }, t('grid.none')),
  );
}

function pageLink(filters, offset, text, rel) {
  const params = Object.fromEntries(
    Object.entries({
      ...filters,
      listing_type: filters.listing,
      listing: undefined,
      offset: Math.max(0, offset),
    }).filter(([, v]) => v !== '' && v !== undefined && v !== 0 && v !== 'newest'),
  );
  return h('span', { class: 'page-link', 'data-rel': rel }, link(params, text));
}

function applyFilters(event) {
  event.preventDefault();
  const data = new FormData(event.currentTarget);
  const params = new URLSearchParams();
  for (const name of ['listing_type', 'location', 'type', 'min_price', 'max_price', 'beds']) {
    const value = String(data.get(name) ?? '').trim();
    if (value) params.set(name, value);
  }
  const amenities = data.getAll('amenity');
  if (amenities.length) params.set('amenities', amenities.join(','));
  if (data.get('sort') !== 'newest') params.set('sort', String(data.get('sort')));
  params.set('lang', state.locale);
  history.pushState(null, '', `?${params}`);
  render();
}

// ---------------------------------------------------------------------------------------------
// One listing

const VIEWED = 'viewed-listings';

/** Counts a view of the listing's page once per visit (reloads and locale switches do not count). */
function countViewOnce(slug) {
  const viewed = new Set(JSON.parse(sessionStorage.getItem(VIEWED) ?? '[]'));
  if (viewed.has(slug)) return;
  viewed.add(slug);
  sessionStorage.setItem(VIEWED, JSON.stringify([...viewed]));
  api(`/v1/site/properties/${encodeURIComponent(slug)}/view`, {}, { method: 'POST' }).catch(() => {
    // A view that could not be counted is not the visitor's problem.
  });
}

async function renderListing(app, slug) {
  let listing;
  try {
    listing = await api(`/v1/site/properties/by-slug/${encodeURIComponent(slug)}`);
  } catch (error) {
    if (error instanceof ApiError && error.status === 404) {
      app.replaceChildren(h('p', { class: 'empty' }, t('listing.notfound')), link({}, t('listing.back')));
      return;
    }
    throw error;
  }
  if (!listing.is_canonical)
    history.replaceState(
      null,
      '',
      `?listing=${encodeURIComponent(listing.canonical_slug)}&lang=${state.locale}`,
    );
  document.title = listing.title;
  countViewOnce(listing.canonical_slug ?? listing.slug);
  const similar = await api(`/v1/site/properties/by-slug/${encodeURIComponent(listing.slug)}/similar`).catch(
    () => ({ items: [] }),
  );
  const images = (Array.isArray(listing.images) ? listing.images : []).filter(shown);
  const gallerySizes = sizesOf(GALLERY_LAYOUT);
  const galleryFirstRow = firstRowOf(GALLERY_LAYOUT);
  app.replaceChildren(
    h(
      'article',
      { class: 'listing', id: 'listing', 'data-id': listing.id, lang: listing.language },
      h('p', {}, link({}, `← ${t('listing.back')}`)),
      h(
        'div',
        { class: 'gallery' },
        images.length
          ? images.map((image, i) =>
              photo(image, listing.title, 'gallery-photo', {
                sizes: gallerySizes,
                eager: i < galleryFirstRow,
              }),
            )
          : photo(null, '', 'gallery-photo'),
      ),
      h('h1', {}, listing.title),
      listing.language !== state.locale ? h('p', { class: 'note' }, t('listing.untranslated')) : null,
      h('p', { class: 'price' }, priceOf(listing)),
      h(
        'p',
        { class: 'facts' },
        [
          listing.place?.long,
          bedrooms(listing),
          listing.bathrooms
            ? t('listing.baths', { n: Number(listing.bathrooms).toLocaleString(state.locale) })
            : null,
          listing.area ? t('listing.area', { n: Number(listing.area) }) : null,
        ]
          .filter(Boolean)
          .join(' · '),
      ),
      listing.highlights.length
        ? h(
            'section',
            { class: 'highlights' },
            h('h2', {}, t('listing.highlights')),
            h(
              'ul',
              {},
              listing.highlights.map((x) => h('li', {}, x)),
            ),
          )
        : null,
      listing.description ? h('p', { class: 'description' }, listing.description) : null,
      listing.amenities.length
        ? h(
            'section',
            {},
            h('h2', {}, t('listing.amenities')),
            h(
              'ul',
              { class: 'amenity-list' },
              listing.amenities.map((a) => h('li', { 'data-code': a.code }, a.label)),
            ),
          )
        : null,
      listing.agent
        ? h(
            'section',
            { class: 'agent', id: 'agent' },
            h('h2', {}, t('listing.agent')),
            link({ page: 'agents', agent: listing.agent.slug }, listing.agent.name),
          )
        : null,
      inquiryForm({ property_id: listing.id }, t('form.title')),
      similar.items.length
        ? h(
            'section',
            { class: 'similar' },
            h('h2', {}, t('listing.similar')),
            h(
              'div',
              { class: 'grid' },
              similar.items.map((listing) => card(listing)),
            ),
          )
        : null,
    ),
  );
}

// ---------------------------------------------------------------------------------------------
// Agents

async function renderAgents(app) {
  const agents = await api('/v1/site/agents');
  const wanted = new URLSearchParams(location.search).get('agent');
  document.title = t('agents.title');
  app.replaceChildren(
    h('h1', {}, t('agents.title')),
    h(
      'section',
      { class: 'agents', id: 'agents' },
      agents.items.map((agent) =>
        h(
          'article',
          { class: `agent-card${agent.slug === wanted ? ' selected' : ''}`, 'data-slug': agent.slug },
          agent.photo_url
            ? h('img', { src: agent.photo_url, alt: agent.name, class: 'agent-photo' })
            : h('div', { class: 'agent-photo initials' }, initials(agent.name)),
          h('h3', {}, agent.name),
          h('p', {}, h('a', { href: `mailto:${agent.email}` }, agent.email)),
          agent.phone ? h('p', {}, h('a', { href: `tel:${agent.phone}` }, agent.phone)) : null,
          h('p', { class: 'facts' }, t('agents.listings', { n: agent.listing_count })),
        ),
      ),
    ),
    inquiryForm({}, t('form.general')),
  );
}

function initials(name) {
  return name
    .split(/\s+/)
    .map((part) => part[0])
    .join('')
    .slice(0, 2)
    .toUpperCase();
}

// ---------------------------------------------------------------------------------------------
// The inquiry form

let turnstileLoading;

/** Cloudflare's widget script, loaded only when a Turnstile site key is configured. */
function loadTurnstile() {
  turnstileLoading ??= new Promise((resolve, reject) => {
    const script = h('script', { src: 'https://challenges.cloudflare.com/turnstile/v0/api.js', async: true });
    script.addEventListener('load', () => resolve(window.turnstile));
    script.addEventListener('error', reject);
    document.head.append(script);
  });
  return turnstileLoading;
}

function inquiryForm(about, title) {
  const widget = h('div', { class: 'turnstile' });
  const result = h('p', { class: 'form-result', role: 'status' });
  let token = config.turnstileSiteKey ? null : DUMMY_TURNSTILE_TOKEN;
  if (config.turnstileSiteKey) {
    loadTurnstile().then((turnstile) =>
      turnstile.render(widget, {
        sitekey: config.turnstileSiteKey,
        // The service refuses a token solved for another form of the page.
        action: 'inquiry',
        callback: (value) => {
          token = value;
        },
      }),
    );
  }
  const form = h(
    'form',
    { class: 'inquiry', id: 'inquiry', onsubmit: send },
    h('h2', {}, title),
    h(
      'label',
      {},
      h('span', {}, t('form.name')),
      h('input', { name: 'name', required: true, maxlength: 255, autocomplete: 'name' }),
    ),
    h(
      'label',
      {},
      h('span', {}, t('form.email')),
      h('input', { name: 'email', type: 'email', required: true, maxlength: 320, autocomplete: 'email' }),
    ),
    h(
      'label',
      {},
      h('span', {}, t('form.message')),
      h('textarea', { name: 'message', required: true, rows: 4, maxlength: 5000 }),
    ),
    widget,
    h('button', { type: 'submit' }, t('form.send')),
    result,
  );
  async function send(event) {
    event.preventDefault();
    const data = new FormData(form);
    const button = form.querySelector('button');
    button.disabled = true;
    button.textContent = t('form.sending');
    try {
      const inquiry = await api(
        '/v1/site/leads',
        {},
        {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          // The full page address as Referer (across origins a browser sends only the origin by
          // default): the agency sees which page the inquiry came from.
          referrerPolicy: 'no-referrer-when-downgrade',
          body: JSON.stringify({
            name: data.get('name'),
            email: data.get('email'),
            message: data.get('message'),
            ...about,
            turnstile: token ?? '',
          }),
        },
      );
      form.replaceChildren(
        h('p', { class: 'form-result sent', 'data-inquiry-id': inquiry?.id ?? '' }, t('form.sent')),
      );
    } catch (error) {
      result.textContent = t('form.failed', {
        status: error instanceof ApiError ? error.status : t('error.unreachable'),
      });
      button.disabled = false;
      button.textContent = t('form.send');
    }
  }
  return form;
}

// ---------------------------------------------------------------------------------------------
// Theme, locale and pages

const RADIUS = { square: '0', rounded: '10px', pill: '999px' };

function applyTheme(theme) {
  const root = document.documentElement.style;
  root.setProperty('--primary', theme.colors.primary);
  root.setProperty('--accent', theme.colors.accent);
  root.setProperty('--background', theme.colors.background);
  root.setProperty('--text', theme.colors.text);
  // The Tenant's fonts when the visitor has them; the system's otherwise (nothing is downloaded).
  root.setProperty('--font-heading', `"${theme.fonts.heading}", system-ui, sans-serif`);
  root.setProperty('--font-body', `"${theme.fonts.body}", system-ui, sans-serif`);
  root.setProperty('--radius', RADIUS[theme.corner_style] ?? RADIUS.rounded);
  document.documentElement.dataset.corners = theme.corner_style;
  const logo = document.querySelector('.logo');
  logo.hidden = !theme.logo_url;
  if (theme.logo_url) logo.src = theme.logo_url;
  document.querySelector('.brand-name').textContent = theme.website ? new URL(theme.website).host : '';
  document.getElementById('powered-by').hidden = !theme.show_powered_by;
}

function setUpLocales(theme) {
  const wanted = new URLSearchParams(location.search).get('lang');
  state.locale = theme.languages.includes(wanted) ? wanted : theme.default_language;
  const picker = document.getElementById('locale');
  const names = new Intl.DisplayNames([state.locale], { type: 'language' });
  picker.replaceChildren(
    ...theme.languages.map((l) => h('option', { value: l, selected: l === state.locale }, names.of(l) ?? l)),
  );
  picker.onchange = () => {
    const params = new URLSearchParams(location.search);
    params.set('lang', picker.value);
    history.pushState(null, '', `?${params}`);
    setUpLocales(theme);
    render();
  };
}

function translateChrome() {
  document.documentElement.lang = state.locale;
  for (const element of document.querySelectorAll('[data-text]'))
    element.textContent = t(element.dataset.text);
  for (const a of document.querySelectorAll('[data-nav]')) {
    a.href = a.dataset.nav === 'agents' ? `?page=agents&lang=${state.locale}` : `?lang=${state.locale}`;
    a.onclick = navigate;
  }
}

async function render() {
  const app = document.getElementById('app');
  const params = new URLSearchParams(location.search);
  document.body.dataset.loading = 'true';
  showStatus('');
  translateChrome();
  try {
    if (params.get('listing')) await renderListing(app, params.get('listing'));
    else if (params.get('page') === 'agents') await renderAgents(app);
    else {
      document.title = t('nav.listings');
      await renderGrid(app);
    }
    window.scrollTo(0, 0);
  } catch (error) {
    app.replaceChildren();
    showStatus(
      error instanceof ApiError ? `${t('error.unreachable')} (${error.status})` : t('error.unreachable'),
    );
  } finally {
    document.body.dataset.loading = 'false';
  }
}

async function start() {
  if (!config.publishableKey) {
    showStatus(t('error.nokey'));
    document.body.dataset.loading = 'false';
    return;
  }
  try {
    state.theme = await api('/v1/theme', { locale: undefined });
  } catch (error) {
    showStatus(
      error instanceof ApiError ? `${t('error.unreachable')} (${error.status})` : t('error.unreachable'),
    );
    document.body.dataset.loading = 'false';
    document.body.dataset.ready = 'error';
    return;
  }
  applyTheme(state.theme);
  setUpLocales(state.theme);
  addEventListener('popstate', () => {
    setUpLocales(state.theme);
    render();
  });
  await render();
  document.body.dataset.ready = 'true';
}

start();
