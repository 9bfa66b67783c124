import { fanOutEvent, queueRequestedSend } from '../services/webhook-deliveries.ts';
import { noticeEndpointDisabled } from '../services/webhook-notices.ts';
import type { TableChange } from './table-change.ts';

/**
 * The stream consumer's webhook processor:
 * - a new event (entity `event`, its envelope as JSON in `envelope`) fans out to the
 *   Tenant's subscribed endpoints;
 * - a delivery whose `sendRequestId` changed (redeliver, test) is queued: the API only writes the
 *   request, so a send cannot be lost between the write and the queue;
 * - an endpoint the delivery worker disabled emails its Tenant Admins (the endpoint is the outbox).
 */
export async function webhookFanout(change: TableChange): Promise<void> {
  if (change.entity === 'event' && change.kind === 'INSERT') {
    const image = change.newImage ?? {};
    if (typeof image.envelope !== 'string' || typeof image.tenantId !== 'string') return;
    await fanOutEvent(image.tenantId, image.envelope);
    return;
  }
  if (change.entity === 'webhookDelivery' && change.kind !== 'REMOVE') {
    await queueRequestedSend(change.oldImage, change.newImage);
    return;
  }
  if (change.entity === 'webhookEndpoint' && change.kind === 'MODIFY') {
    await noticeEndpointDisabled(change.oldImage, change.newImage);
  }
}
