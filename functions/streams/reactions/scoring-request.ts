import type { ScoreMessage } from '../../kernel/messages/ai-queue.ts';
import { requestScoring } from '../../services/scoring-requests.ts';
import type { TableChange } from '../table-change.ts';

/**
 * The change that asks for a Lead to be (re)scored: a new Inquiry (an inquiry or a registration),
 * or a write of its criteria (their specificity is a scoring signal). `requestedAt` is that item's
 * own time, so a retried record sends the same request again and the AI worker charges it once.
 */
function scoringAskedBy(change: TableChange): Omit<ScoreMessage, 'type'> | undefined {
  const image = change.newImage;
  if (!image || typeof image.tenantId !== 'string' || typeof image.leadId !== 'string') return undefined;
  if (change.entity === 'inquiry' && change.kind === 'INSERT' && typeof image.createdAt === 'string') {
    const inquiryId = typeof image.id === 'string' ? { inquiryId: image.id } : {};
    return { tenantId: image.tenantId, leadId: image.leadId, requestedAt: image.createdAt, ...inquiryId };
  }
  if (change.entity === 'leadCriteria' && typeof image.updatedAt === 'string') {
    return { tenantId: image.tenantId, leadId: image.leadId, requestedAt: image.updatedAt };
  }
  return undefined;
}

/** The scoring-request reaction: queues (re)scoring on the AI queue; a failed send fails the record. */
export async function scoringRequest(change: TableChange): Promise<void> {
  const asked = scoringAskedBy(change);
  if (asked) await requestScoring(asked);
}
