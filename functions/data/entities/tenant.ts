import { Entity } from 'electrodb';
import { asIs, entityConfig, lazyEntity, SERVICE, timestamps } from './common.ts';

/** An agency. Its slug is unique platform-wide (guarded by a UniqueClaim in the same transaction). */
export const Tenant = lazyEntity(
  () =>
    new Entity(
      {
        model: { service: SERVICE, entity: 'tenant', version: '1' },
        attributes: {
          tenantId: { type: 'string', required: true, readOnly: true },
          slug: { type: 'string', required: true, readOnly: true },
          name: { type: 'string', required: true },
          /** Site Languages, the first one is the default. */
          languages: { type: 'list', items: { type: 'string' }, required: true },
          website: { type: 'string' },
          /** The website's theme as `theme set` stored it (http/site/theme-schemas.ts `ThemeIn`). */
          theme: { type: 'any' },
          /** ISO 3166 country whose calling code completes local phone numbers (Lead dedupe). */
          defaultCountry: { type: 'string', required: true, default: 'US' },
          subscription: { type: ['active', 'read_only'] as const, required: true, default: 'active' },
          suspended: { type: 'boolean', required: true, default: false },
          /** Replaces the default tenant budget when set. */
          rateLimitPerMinute: { type: 'number' },
          /** The Tenant's AI off-switch: false holds every enrichment in `off`. */
          aiEnabled: { type: 'boolean', required: true, default: true },
          /** Monthly AI Spend Ceiling in USD; unset means no ceiling. */
          aiMonthlyLimitUsd: { type: 'number' },
          ...timestamps,
        },
        indexes: {
          byId: {
            pk: { field: 'pk', composite: ['tenantId'], template: 't#${tenantId}', ...asIs },
            sk: { field: 'sk', composite: [], template: 'tenant', ...asIs },
          },
          /** Every Tenant (platform jobs such as the monthly AI resume). */
          all: {
            index: 'gsi2',
            pk: { field: 'gsi2pk', composite: [], template: 'global#tenants', ...asIs },
            sk: { field: 'gsi2sk', composite: ['tenantId'], template: '${tenantId}', ...asIs },
          },
          bySlug: {
            index: 'gsi1',
            pk: { field: 'gsi1pk', composite: ['slug'], template: 'global#tenant-slug#${slug}', ...asIs },
            sk: { field: 'gsi1sk', composite: [], template: 'tenant', ...asIs },
          },
        },
      },
      entityConfig(),
    ),
);
