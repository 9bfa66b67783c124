import { requestEnrichment } from '../../services/enrichment.ts';
import type { TableChange } from '../table-change.ts';

/**
 * The enrichment-request reaction (an outbox): a listing that now waits for a new enrichment request
 * (status pending, a request id it did not have before) gets it queued. The write that asked for it
 * committed, so the request cannot be lost; a retried record queues the same request id again, which
 * the AI worker runs once (it acts only while the listing still waits for that id).
 */
export async function enrichmentRequest(change: TableChange): Promise<void> {
  const image = change.newImage;
  if (change.entity !== 'property' || !image || image.enrichmentStatus !== 'pending') return;
  const requestId = image.enrichmentRequestId;
  if (typeof requestId !== 'string' || !requestId || requestId === change.oldImage?.enrichmentRequestId)
    return;
  await requestEnrichment(String(image.tenantId), String(image.id), requestId);
}
