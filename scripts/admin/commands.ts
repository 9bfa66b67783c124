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
import { importListings } from '../../functions/services/listing-import.ts';
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

/** A command's flags and what it does are its line in ./usage.ts (COMMAND_USAGE). */
export interface Command {
  /** `progress(label)` gives a reporter of a long loop's progress (drawn only on a terminal). */
  run: (flags: Flags, progress: (label: string) => ProgressReporter) => Promise<unknown>;
}

/** Every admin command, keyed by "<group> <action>". Output is the JSON printed on stdout. */
export const commands: Record<string, Command> = {
  'tenant create': {
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
    run: async (flags) => presentTenant(await requireTenantBySlug(required(flags, 'tenant'))),
  },
  'agent create': {
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
    run: async (flags) => {
      const tenant = await requireTenantBySlug(required(flags, 'tenant'));
      const record = await revokeApiKeyById(tenant.tenantId, required(flags, 'id'));
      return { id: record.id, revoked_at: record.revokedAt, webhooks_disabled: record.webhooksDisabled };
    },
  },
  'key list': {
    run: async (flags) => {
      const tenant = await requireTenantBySlug(required(flags, 'tenant'));
      return listKeys(tenant.tenantId);
    },
  },
  'site-key create': {
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
    run: async (flags) => {
      const tenant = await requireTenantBySlug(required(flags, 'tenant'));
      const record = await revokeSiteKey(tenant.tenantId, required(flags, 'id'));
      return { id: record.id, revoked_at: record.revokedAt };
    },
  },
  'webhook create': {
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
    run: async (flags) => {
      const tenant = await requireTenantBySlug(required(flags, 'tenant'));
      return (await listAllEndpoints(tenant.tenantId)).map(toEndpointOut);
    },
  },
  'area create': {
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
    run: async (flags, progress) => {
      const tenant = await requireTenantBySlug(required(flags, 'tenant'));
      return recomputeAreas(tenant.tenantId, optional(flags, 'area'), progress('area recompute'));
    },
  },
  'lead rekey': {
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
    run: async (flags, progress) => {
      const concurrency = integerFlag(flags, 'concurrency', 1);
      const tenant = await requireTenantBySlug(required(flags, 'tenant'));
      const file = required(flags, 'file');
      const items = readJsonArray(file);
      return importListings(tenant, items, basename(file), progress('listing import'), { concurrency });
    },
  },
  'listing migrate': {
    run: async (flags, progress) => {
      const tenant = await requireTenantBySlug(required(flags, 'tenant'));
      return migrateListings(tenant.tenantId, progress('listing migrate'));
    },
  },
  'listing show': {
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
    run: async (flags) => setTheme(required(flags, 'tenant'), readJson(required(flags, 'file'))),
  },
  'email list': {
    run: async (flags) => {
      const tenant = await requireTenantBySlug(required(flags, 'tenant'));
      return listOutbox(tenant.tenantId);
    },
  },
  'place create': {
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
