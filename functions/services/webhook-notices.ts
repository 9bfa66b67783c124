import { listActiveAgents } from '../data/agents.ts';
import { onceByReceipt } from '../data/reaction-receipts.ts';
import type { DisabledReason } from '../data/webhooks.ts';
import { headerSafe } from '../domain/owner-notices.ts';
import { MAX_CONSECUTIVE_FAILURES } from '../domain/webhooks.ts';
import { logger } from '../kernel/logger.ts';
import { BusinessMetric, countMetric } from '../kernel/metrics.ts';
import { emailErrorName, emails, isPermanentEmailFailure } from '../kernel/ports/email.ts';

/** The reasons that email the Tenant Admins: the receiver's own doing (a revoked key is the Tenant's). */
const NOTIFIED_REASONS: readonly DisabledReason[] = ['failures', 'gone'];

/**
 * The disable notice's outbox is the endpoint itself, so no notice is lost between the disabling
 * and the email: the update that disabled it reaches the stream consumer, which emails each Tenant
 * Admin once (a receipt per Admin and disabling). A send that fails for now fails the record after
 * the others were tried, so the retry emails only the Admins still without a receipt; one SES
 * refuses for good is parked and counted.
 */
export async function noticeEndpointDisabled(
  oldImage: Record<string, unknown> | undefined,
  newImage: Record<string, unknown> | undefined,
): Promise<void> {
  if (oldImage?.enabled !== true || newImage?.enabled !== false) return;
  const reason = newImage.disabledReason as DisabledReason | undefined;
  const tenantId = newImage.tenantId;
  if (!reason || !NOTIFIED_REASONS.includes(reason) || typeof tenantId !== 'string') return;
  const endpoint = { tenantId, id: String(newImage.id), url: String(newImage.url) };
  const admins = (await listActiveAgents(tenantId)).filter((a) => a.isAdmin);
  const why =
    reason === 'gone'
      ? 'The receiver answered 410 Gone, which asks us to stop sending.'
      : // The rule's figure: failures counted while the disabling was written do not change what tripped it.
        `The last ${MAX_CONSECUTIVE_FAILURES} delivery attempts in a row failed.`;
  const text = [
    `The webhook endpoint ${endpoint.url} (id ${endpoint.id}) has been disabled.`,
    why,
    'Nothing is sent to it while it is disabled; deliveries that fall due meanwhile are marked failed',
    'and can be redelivered. Fix the receiver, then enable the endpoint again in the console or with',
    `PATCH /v1/webhooks/${endpoint.id} {"enabled": true}.`,
  ].join('\n');
  const subject = headerSafe(`Webhook endpoint disabled: ${endpoint.url}`);
  const outcomes = await Promise.allSettled(
    admins.map((admin) =>
      onceByReceipt(
        tenantId,
        `endpoint-disabled#${endpoint.id}#${String(newImage.disabledAt)}#${admin.id}`,
        async () => {
          try {
            await emails().send({ tenantId, to: admin.email, subject, text });
          } catch (error) {
            if (!isPermanentEmailFailure(error)) throw error;
            // SES's message names the refused address: its error code only.
            logger.error('endpoint disable notice parked: the email service refuses it for good', {
              tenantId,
              endpointId: endpoint.id,
              agentId: admin.id,
              errorName: emailErrorName(error),
            });
            countMetric(BusinessMetric.OwnerNoticesParked);
          }
        },
      ),
    ),
  );
  const failed = outcomes.find((o): o is PromiseRejectedResult => o.status === 'rejected');
  if (failed) throw failed.reason;
}
