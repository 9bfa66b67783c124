import { setTimeout } from 'node:timers/promises';
import { ReactionReceipt } from './entities/reaction-receipt.ts';

/** Receipts outlive the stream's 24 h retention and every retry of a record by far. */
const RECEIPT_DAYS = 7;
/**
 * Once the effect ran, its receipt is written until it lands (a put is safe to repeat): a receipt
 * lost to a throttle past the SDK's retries or a 500 would have the retried record repeat the effect.
 * Six attempts over about 6 s outlast a throttling burst; past them the record fails as before.
 */
const RECEIPT_WRITE_ATTEMPTS = 6;
const RECEIPT_RETRY_BASE_MS = 200;

/**
 * Runs `effect` at most once per `receiptKey` (effects that have no idempotency key of their own,
 * such as an email): skipped when a receipt says it was done; the receipt is written only after it
 * succeeded, and written again until it lands. A failing effect throws, leaves no receipt and is run
 * again when the record is retried. Only a crash between the effect and its receipt can repeat it
 * once: at least once, never lost.
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
  const receipt = {
    tenantId,
    receiptKey,
    doneAt: now.toISOString(),
    ttl: Math.floor(now.getTime() / 1000) + RECEIPT_DAYS * 86_400,
  };
  for (let attempt = 1; ; attempt++) {
    try {
      await ReactionReceipt.put(receipt).go();
      return true;
    } catch (error) {
      if (attempt >= RECEIPT_WRITE_ATTEMPTS) throw error;
      // Exponential with full jitter, as the SDK's own retries.
      await setTimeout(Math.random() * RECEIPT_RETRY_BASE_MS * 2 ** attempt);
    }
  }
}
