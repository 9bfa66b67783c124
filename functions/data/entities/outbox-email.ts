import { Entity } from 'electrodb';
import { asIs, entityConfig, lazyEntity, SERVICE } from './common.ts';

/**
 * An email the local stack "sent": in AWS emails go through SES; locally they land here so that
 * `npm run -s admin -- email list --tenant SLUG` shows what would have been sent.
 */
export const OutboxEmail = lazyEntity(
  () =>
    new Entity(
      {
        model: { service: SERVICE, entity: 'outboxEmail', version: '1' },
        attributes: {
          tenantId: { type: 'string', required: true, readOnly: true },
          id: { type: 'string', required: true, readOnly: true },
          to: { type: 'string', required: true },
          subject: { type: 'string', required: true },
          text: { type: 'string', required: true },
          createdAt: { type: 'string', required: true, readOnly: true },
        },
        indexes: {
          byTenant: {
            pk: { field: 'pk', composite: ['tenantId'], template: 't#${tenantId}#outbox', ...asIs },
            sk: { field: 'sk', composite: ['createdAt', 'id'], template: '${createdAt}#${id}', ...asIs },
          },
        },
      },
      entityConfig(),
    ),
);
