import { ReactionReceipt } from './entities/reaction-receipt.ts';

/** Receipts outlive the stream's 24 h retention and every retry of a record by far. */
const RECEIPT_DAYS = 7;

/**
 * Runs `effect` at most once per `receiptKey` (effects that have no idempotency key of their own,
 * such as an email): skipped when a receipt says it was done; the receipt is written only after it
 * succeeded. A failing effect throws, leaves no receipt and is run again when the record is retried.
 * Between the effect and its receipt a crash can repeat it once: at least once, never lost.
 * Returns false when the receipt was already there.
 */
export async function onceByReceipt(
  tenantId: string,
  receiptKey: string,
  effect: () => Promise<void>,
): Promise<boolean> {
  const { data } = await ReactionReceipt.get({ tenantId, receiptKey }).go({ consistent: true });
  if (data) return false;
  await effect();
  const now = new Date();
  await ReactionReceipt.put({
    tenantId,
    receiptKey,
    doneAt: now.toISOString(),
    ttl: Math.floor(now.getTime() / 1000) + RECEIPT_DAYS * 86_400,
  }).go();
  return true;
}
