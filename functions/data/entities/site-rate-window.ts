import { Entity } from 'electrodb';
import { asIs, entityConfig, lazyEntity, SERVICE } from './common.ts';

/**
 * One fixed one-minute window of a Tenant's site budgets (docs/site-api.md). `bucket` is `site` for the
 * Tenant's counter over all its publishable keys, `network#<prefix>/48` for an IPv6 visitor's
 * network, or `visitor#<ip>` for one visitor (an IPv4 address or an IPv6 /64), whose item also
 * holds its inquiry counters per key (`inquiry_<keyId>`, added by data/site-rate-limits.ts). An
 * item per bucket, not one: a Tenant-wide item holding every visitor would grow with them, and each write is
 * billed by the item's size.
 */
export const SiteRateWindow = lazyEntity(
  () =>
    new Entity(
      {
        model: { service: SERVICE, entity: 'siteRateWindow', version: '1' },
        attributes: {
          tenantId: { type: 'string', required: true, readOnly: true },
          /** Epoch seconds of the window's start. */
          windowStart: { type: 'number', required: true, readOnly: true },
          bucket: { type: 'string', required: true, readOnly: true },
          count: { type: 'number' },
          ttl: { type: 'number' },
        },
        indexes: {
          byWindow: {
            pk: {
              field: 'pk',
              composite: ['tenantId', 'windowStart', 'bucket'],
              template: 't#${tenantId}#site-rate#${windowStart}#${bucket}',
              ...asIs,
            },
            sk: { field: 'sk', composite: [], template: 'window', ...asIs },
          },
        },
      },
      entityConfig(),
    ),
);
