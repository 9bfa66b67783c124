import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { toPlaceOut } from '../../functions/contract/places.ts';
import { toPropertyOut } from '../../functions/contract/properties.ts';
import { toEndpointOut } from '../../functions/contract/webhooks.ts';
import { withoutUndefined } from '../../functions/data/defined.ts';
import { rekeyLeads } from '../../functions/data/leads.ts';
import { listingViewCount } from '../../functions/data/listing-views.ts';
import { listTenants, requireTenantBySlug } from '../../functions/data/tenants.ts';
import { RequestValidationError } from '../../functions/kernel/errors.ts';
import {
  bindAwsAdapter as bindAwsCatalogueStore,
  setCatalogueStore,
} from '../../functions/kernel/ports/catalogue-store.ts';
import {
  bindAwsAdapter as bindAwsPhotoCdn,
  NoPhotoCdn,
  setPhotoCdn,
} from '../../functions/kernel/ports/photo-cdn.ts';
import {
  bindAwsAdapter as bindAwsPhotoStore,
  setPhotoStore,
} from '../../functions/kernel/ports/photo-store.ts';
import { createAgent } from '../../functions/services/agents.ts';
import { issueApiKey, parseScopes, revokeApiKeyById } from '../../functions/services/api-keys.ts';
import { createArea, recomputeAreas, setManualMembership } from '../../functions/services/areas.ts';
import { rebuildCatalogueSnapshot } from '../../functions/services/catalogue-rebuild.ts';
import { resumeHeldEnrichments } from '../../functions/services/enrichment.ts';
import { IMPORT_CONCURRENCY, importListings } from '../../functions/services/listing-import.ts';
import { migrateListings, readListing } from '../../functions/services/listings.ts';
import { renderStoredPhotos } from '../../functions/services/photo-processing.ts';
import { orderByDepth, type PlaceInput, savePlace } from '../../functions/services/places.ts';
import {
  issueSiteKey,
  listKeys,
  revokeSiteKey,
  updateSiteKeyOrigins,
} from '../../functions/services/site-keys.ts';
import { setTheme } from '../../functions/services/site-theme.ts';
import {
  AdminInputError,
  createTenantFromAdmin,
  parseCountry,
  parseLanguages,
  presentTenant,
  updateTenantFromAdmin,
} from '../../functions/services/tenants.ts';
import { createEndpoint, listAllEndpoints } from '../../functions/services/webhook-endpoints.ts';
import { localCatalogueStore } from '../local/adapters/local-catalogue-store.ts';
import { localPhotoStore } from '../local/adapters/local-photo-store.ts';
import { listOutbox } from '../local/adapters/outbox-email.ts';
import {
  booleanFlag,
  decimalFlag,
  type Flags,
  integerFlag,
  oneOf,
  optional,
  required,
  UsageError,
} from './args.ts';
import type { ProgressReporter } from './progress.ts';

/**
 * The catalogue store of the table the CLI works on: the local S3 beside a local table (the local
 * stack's, or S3_ENDPOINT), S3 itself beside a deployed one (CATALOGUE_BUCKET).
 */
function bindCatalogueStoreOfTarget(): void {
  if (process.env.S3_ENDPOINT) setCatalogueStore(localCatalogueStore());
  else if (!process.env.DYNAMODB_ENDPOINT) bindAwsCatalogueStore();
  else throw new AdminInputError('No S3 for the catalogue snapshots: run `npm start`, or set S3_ENDPOINT');
}

/**
 * The photo bucket and CDN of the table the CLI works on: the local S3 (no CDN) beside a local table,
 * S3 and CloudFront beside a deployed one (PHOTO_BUCKET, PHOTO_BASE_URL, PHOTO_DISTRIBUTION_ID).
 */
function bindPhotosOfTarget(): void {
  if (process.env.S3_ENDPOINT) {
    setPhotoStore(localPhotoStore());
    setPhotoCdn(new NoPhotoCdn());
  } else if (!process.env.DYNAMODB_ENDPOINT) {
    bindAwsPhotoStore();
    bindAwsPhotoCdn();
  } else throw new AdminInputError('No S3 for the photos: run `npm start`, or set S3_ENDPOINT');
}

export interface Command {
  usage: string;
  /** `progress(label)` gives a reporter of a long loop's progress (drawn only on a terminal). */
  run: (flags: Flags, progress: (label: string) => ProgressReporter) => Promise<unknown>;
}

/** Every admin command, keyed by "<group> <action>". Output is the JSON printed on stdout. */
export const commands: Record<string, Command> = {
  'tenant create': {
    usage: '--slug SLUG --name NAME [--languages en,es] [--website URL] [--country ES]',
    run: async (flags) => {
      const languages = optional(flags, 'languages');
      const website = optional(flags, 'website');
      const country = optional(flags, 'country');
      const tenant = await createTenantFromAdmin({
        slug: required(flags, 'slug'),
        name: required(flags, 'name'),
        ...(languages ? { languages: parseLanguages(languages) } : {}),
        ...(website ? { website } : {}),
        ...(country ? { defaultCountry: country } : {}),
      });
      return { id: tenant.tenantId, slug: tenant.slug };
    },
  },
  'tenant update': {
    usage:
      '--tenant SLUG [--name NAME] [--languages en,es] [--website URL] [--country ES] [--subscription active|read_only] [--suspended true|false] [--rate-limit-per-minute N] [--ai on|off] [--ai-monthly-limit-usd N]',
    run: async (flags) => {
      const languages = optional(flags, 'languages');
      const changes = withoutUndefined({
        ...(optional(flags, 'name') ? { name: required(flags, 'name') } : {}),
        ...(languages ? { languages: parseLanguages(languages) } : {}),
        ...(optional(flags, 'website') ? { website: required(flags, 'website') } : {}),
        ...(optional(flags, 'country') ? { defaultCountry: parseCountry(required(flags, 'country')) } : {}),
        ...(flags.has('subscription')
          ? { subscription: oneOf(flags, 'subscription', ['active', 'read_only'] as const) }
          : {}),
        ...(flags.has('suspended') ? { suspended: booleanFlag(flags, 'suspended') } : {}),
        ...(flags.has('rate-limit-per-minute')
          ? { rateLimitPerMinute: integerFlag(flags, 'rate-limit-per-minute', 1) }
          : {}),
        ...(flags.has('ai') ? { aiEnabled: oneOf(flags, 'ai', ['on', 'off'] as const) === 'on' } : {}),
        ...(flags.has('ai-monthly-limit-usd')
          ? { aiMonthlyLimitUsd: decimalFlag(flags, 'ai-monthly-limit-usd') }
          : {}),
      });
      if (Object.keys(changes).length === 0)
        throw new UsageError('Nothing to change: pass at least one option');
      const tenant = await updateTenantFromAdmin(required(flags, 'tenant'), changes);
      if (!flags.has('ai') && !flags.has('ai-monthly-limit-usd')) return presentTenant(tenant);
      // AI switched on or the ceiling raised: held (off, paused) enrichments are queued again.
      const { resumed } = await resumeHeldEnrichments(tenant.tenantId);
      return { ...presentTenant(tenant), enrichments_resumed: resumed };
    },
  },
  'tenant show': {
    usage: '--tenant SLUG',
    run: async (flags) => presentTenant(await requireTenantBySlug(required(flags, 'tenant'))),
  },
  'agent create': {
    usage: '--tenant SLUG --name NAME --email EMAIL [--phone P] [--admin]',
    run: async (flags) => {
      const tenant = await requireTenantBySlug(required(flags, 'tenant'));
      const phone = optional(flags, 'phone');
      const agent = await createAgent({
        tenantId: tenant.tenantId,
        name: required(flags, 'name'),
        email: required(flags, 'email'),
        ...(phone ? { phone } : {}),
        isAdmin: booleanFlag(flags, 'admin') ?? false,
      });
      return { id: agent.id, slug: agent.slug };
    },
  },
  'key create': {
    usage: '--tenant SLUG --name NAME --scopes s1,s2 [--expires-at ISO]',
    run: async (flags) => {
      const tenant = await requireTenantBySlug(required(flags, 'tenant'));
      const expiresAt = optional(flags, 'expires-at');
      const { record, secret } = await issueApiKey({
        tenantId: tenant.tenantId,
        name: required(flags, 'name'),
        scopes: parseScopes(required(flags, 'scopes')),
        ...(expiresAt ? { expiresAt } : {}),
      });
      return { id: record.id, key: secret };
    },
  },
  'key revoke': {
    usage: '--tenant SLUG --id ID',
    run: async (flags) => {
      const tenant = await requireTenantBySlug(required(flags, 'tenant'));
      const record = await revokeApiKeyById(tenant.tenantId, required(flags, 'id'));
      return { id: record.id, revoked_at: record.revokedAt, webhooks_disabled: record.webhooksDisabled };
    },
  },
  'key list': {
    usage: '--tenant SLUG   (every secret and publishable key; never the keys themselves)',
    run: async (flags) => {
      const tenant = await requireTenantBySlug(required(flags, 'tenant'));
      return listKeys(tenant.tenantId);
    },
  },
  'site-key create': {
    usage:
      '--tenant SLUG --origins https://a.example,https://*.a.example [--name NAME]   (the key is shown only here)',
    run: async (flags) => {
      const tenant = await requireTenantBySlug(required(flags, 'tenant'));
      const { record, key } = await issueSiteKey({
        tenantId: tenant.tenantId,
        origins: required(flags, 'origins'),
        name: optional(flags, 'name'),
      });
      return { id: record.id, key };
    },
  },
  'site-key update': {
    usage: '--tenant SLUG --id ID --origins https://a.example,...   (replaces the whole list)',
    run: async (flags) => {
      const tenant = await requireTenantBySlug(required(flags, 'tenant'));
      const record = await updateSiteKeyOrigins(
        tenant.tenantId,
        required(flags, 'id'),
        required(flags, 'origins'),
      );
      return { id: record.id, origins: record.origins ?? [] };
    },
  },
  'site-key revoke': {
    usage: '--tenant SLUG --id ID',
    run: async (flags) => {
      const tenant = await requireTenantBySlug(required(flags, 'tenant'));
      const record = await revokeSiteKey(tenant.tenantId, required(flags, 'id'));
      return { id: record.id, revoked_at: record.revokedAt };
    },
  },
  'webhook create': {
    usage: '--tenant SLUG --url URL --events a,b   (a console endpoint; the secret is shown only here)',
    run: async (flags) => {
      const tenant = await requireTenantBySlug(required(flags, 'tenant'));
      const events = required(flags, 'events')
        .split(',')
        .map((e) => e.trim())
        .filter(Boolean);
      try {
        const endpoint = await createEndpoint({
          tenantId: tenant.tenantId,
          url: required(flags, 'url'),
          events,
          via: 'console',
          loc: { url: ['--url'], events: ['--events'] },
        });
        return { id: endpoint.id, secret: endpoint.secret };
      } catch (error) {
        if (!(error instanceof RequestValidationError)) throw error;
        throw new AdminInputError(error.issues.map((i) => `${i.loc.join(' ')}: ${i.msg}`).join('; '));
      }
    },
  },
  'webhook list': {
    usage: '--tenant SLUG',
    run: async (flags) => {
      const tenant = await requireTenantBySlug(required(flags, 'tenant'));
      return (await listAllEndpoints(tenant.tenantId)).map(toEndpointOut);
    },
  },
  'area create': {
    usage: '--tenant SLUG --kind region|zone|neighborhood|community --name NAME [--places CODE,...]',
    run: async (flags) => {
      const tenant = await requireTenantBySlug(required(flags, 'tenant'));
      const places = optional(flags, 'places');
      const { area, added } = await createArea({
        tenantId: tenant.tenantId,
        kind: required(flags, 'kind'),
        name: required(flags, 'name'),
        placeCodes: places
          ? places
              .split(',')
              .map((c) => c.trim())
              .filter(Boolean)
          : [],
      });
      return {
        id: area.id,
        kind: area.kind,
        name: area.name,
        place_codes: area.placeCodes,
        listings_added: added,
      };
    },
  },
  'area add-listing': {
    usage: '--tenant SLUG --area AREA_ID --listing PROPERTY_ID',
    run: async (flags) => {
      const tenant = await requireTenantBySlug(required(flags, 'tenant'));
      return setManualMembership(
        tenant.tenantId,
        required(flags, 'area'),
        required(flags, 'listing'),
        'manual',
      );
    },
  },
  'area exclude-listing': {
    usage: '--tenant SLUG --area AREA_ID --listing PROPERTY_ID',
    run: async (flags) => {
      const tenant = await requireTenantBySlug(required(flags, 'tenant'));
      return setManualMembership(
        tenant.tenantId,
        required(flags, 'area'),
        required(flags, 'listing'),
        'excluded',
      );
    },
  },
  'area recompute': {
    usage: '--tenant SLUG [--area AREA_ID]',
    run: async (flags, progress) => {
      const tenant = await requireTenantBySlug(required(flags, 'tenant'));
      return recomputeAreas(tenant.tenantId, optional(flags, 'area'), progress('area recompute'));
    },
  },
  'lead rekey': {
    usage:
      '--tenant SLUG   (re-files Leads stored under older keys: archived ones, legacy search tokens; rerunnable)',
    run: async (flags) => {
      const tenant = await requireTenantBySlug(required(flags, 'tenant'));
      const total = { examined: 0, rekeyed: 0 };
      let after: string | undefined;
      do {
        const run = await rekeyLeads(tenant.tenantId, { after });
        total.examined += run.examined;
        total.rekeyed += run.rekeyed;
        after = run.resumeAfter;
      } while (after);
      return total;
    },
  },
  'listing import': {
    usage: `--tenant SLUG --file FEED.json [--concurrency N]   (a JSON array of listings in the create shape, each with internal_ref; N items at once, ${IMPORT_CONCURRENCY} by default, items of one internal_ref one after the other in feed order; throttled items are retried, failures listed per item; re-running the same feed resumes it: imported items are skipped by internal_ref)`,
    run: async (flags, progress) => {
      const concurrency = integerFlag(flags, 'concurrency', 1);
      const tenant = await requireTenantBySlug(required(flags, 'tenant'));
      const file = required(flags, 'file');
      const items = readJsonArray(file);
      return importListings(tenant, items, basename(file), progress('listing import'), { concurrency });
    },
  },
  'listing migrate': {
    usage:
      '--tenant SLUG   (lays out listings stored before the item bounds: long translations in their own items, the last 20 price changes; moves listings archived before into the archived list; rerunnable)',
    run: async (flags, progress) => {
      const tenant = await requireTenantBySlug(required(flags, 'tenant'));
      return migrateListings(tenant.tenantId, progress('listing migrate'));
    },
  },
  'listing show': {
    usage: '--tenant SLUG --id PROPERTY_ID',
    run: async (flags) => {
      const tenant = await requireTenantBySlug(required(flags, 'tenant'));
      const { property, areas } = await readListing(tenant.tenantId, required(flags, 'id'));
      return {
        ...toPropertyOut(property, { areas }),
        created_by: property.createdBy,
        updated_by: property.updatedBy,
        price_history: property.priceHistory ?? [],
        manual_fields: property.manualFields ?? [],
        views: await listingViewCount(tenant.tenantId, property.id),
        texts: property.texts ?? {},
        enrichment: {
          status: property.enrichmentStatus ?? null,
          attempts: property.enrichmentAttempts ?? 0,
          enriched_at: property.enrichedAt ?? null,
          error: property.enrichmentError ?? null,
        },
      };
    },
  },
  'photos render': {
    usage:
      '--tenant SLUG | --all   (makes the renditions of the photos stored before renditions existed, listing by listing, and stops serving their originals; rerunnable: a photo with renditions is skipped; deployed: PHOTO_BUCKET, PHOTO_BASE_URL, PHOTO_DISTRIBUTION_ID)',
    run: async (flags, progress) => {
      const slug = optional(flags, 'tenant');
      const all = booleanFlag(flags, 'all') === true;
      if (all === (slug !== undefined)) throw new UsageError('give --tenant SLUG or --all');
      bindPhotosOfTarget();
      const tenants = slug ? [await requireTenantBySlug(slug)] : await listTenants();
      const reports = [];
      for (const tenant of tenants) {
        const report = await renderStoredPhotos(tenant.tenantId, progress(`photos render ${tenant.slug}`));
        reports.push({ tenant: tenant.slug, ...report });
      }
      return slug ? reports[0] : { tenants: reports };
    },
  },
  'catalogue rebuild': {
    usage:
      "--tenant SLUG   (rewrites the Tenant's catalogue snapshot from every listing in the table; deployed: CATALOGUE_BUCKET)",
    run: async (flags, progress) => {
      const tenant = await requireTenantBySlug(required(flags, 'tenant'));
      bindCatalogueStoreOfTarget();
      return rebuildCatalogueSnapshot(tenant.tenantId, {
        fromTable: true,
        step: progress('catalogue rebuild'),
      });
    },
  },
  'theme set': {
    usage:
      '--tenant SLUG --file theme.json   ({colors: {primary, accent, background, text}, fonts: {heading, body}, corner_style, logo_url, show_powered_by})',
    run: async (flags) => setTheme(required(flags, 'tenant'), readJson(required(flags, 'file'))),
  },
  'email list': {
    usage: '--tenant SLUG   (the local outbox: what the local stack would have emailed)',
    run: async (flags) => {
      const tenant = await requireTenantBySlug(required(flags, 'tenant'));
      return listOutbox(tenant.tenantId);
    },
  },
  'place create': {
    usage: '--code CODE --name NAME [--parent CODE] [--kind KIND]',
    run: async (flags) =>
      toPlaceOut(
        await savePlace({
          code: required(flags, 'code'),
          name: required(flags, 'name'),
          parent: optional(flags, 'parent'),
          kind: optional(flags, 'kind'),
        }),
      ),
  },
  'place import': {
    usage: '--file FILE.json   (a JSON array of {code, name, parent?, kind?})',
    run: async (flags, progress) => {
      const file = required(flags, 'file');
      const places = readJsonArray(file) as PlaceInput[];
      const ordered = orderByDepth(places);
      const parents = new Map();
      const failures: { code: unknown; error: string }[] = [];
      let imported = 0;
      const report = progress('place import');
      for (const [i, place] of ordered.entries()) {
        try {
          if (
            !place ||
            typeof place !== 'object' ||
            typeof place.code !== 'string' ||
            typeof place.name !== 'string'
          ) {
            throw new AdminInputError('each place needs a string code and name');
          }
          await savePlace(place, parents);
          imported++;
        } catch (error) {
          if (!(error instanceof AdminInputError)) throw error;
          failures.push({ code: (place as { code?: unknown })?.code ?? null, error: error.message });
        }
        report(i + 1, ordered.length);
      }
      return { total: places.length, imported, failed: failures.length, failures };
    },
  },
};

function readJson(file: string): unknown {
  try {
    return JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new AdminInputError(`Cannot read ${file}: ${(error as Error).message}`);
  }
}

function readJsonArray(file: string): unknown[] {
  const parsed = readJson(file);
  if (!Array.isArray(parsed)) throw new AdminInputError(`${file} must hold a JSON array`);
  return parsed;
}

export function usage(): string {
  return [
    'Usage: npm run -s admin -- <command> [--flag value ...]',
    '',
    ...Object.entries(commands).map(([name, c]) => `  ${name} ${c.usage}`),
    '',
    'Targets the local stack running on DATA_DIR (default .data/), or a deployed table when TABLE_NAME is set.',
  ].join('\n');
}
