import { Service } from 'electrodb';
import { BusinessMetric, countMetric } from '../kernel/metrics.ts';
import { AiCharge } from './entities/ai-charge.ts';
import { AiSpend } from './entities/ai-spend.ts';
import { failedCondition, writeTransaction } from './transactions.ts';

export async function spentThisMonthUsd(tenantId: string, month: string): Promise<number> {
  const { data } = await AiSpend.get({ tenantId, month }).go();
  return (data?.costMicroUsd ?? 0) / 1_000_000;
}

type Usage = { inputTokens: number; outputTokens: number };

function spendAdded(costUsd: number, usage: Usage) {
  return {
    costMicroUsd: Math.round(costUsd * 1_000_000),
    inputTokens: usage.inputTokens,
    outputTokens: usage.outputTokens,
    runs: 1,
  };
}

/** Adds usage to the month (atomic ADDs: concurrent workers cannot lose spend). Not idempotent. */
export async function chargeSpend(tenantId: string, month: string, costUsd: number, usage: Usage) {
  await AiSpend.update({ tenantId, month }).add(spendAdded(costUsd, usage)).go();
}

/** Receipts outlive any redelivery: SQS keeps a message 14 days at most. */
const RECEIPT_DAYS = 35;

let charges: ReturnType<typeof buildChargeService> | undefined;
function buildChargeService() {
  return new Service({ AiCharge, AiSpend });
}

/**
 * Charges one AI run to the month at most once per `chargeId` (the work it paid for): the receipt
 * is created only if absent, in the same transaction as the spend. Returns false when `chargeId`
 * was already charged (a redelivered message), leaving the spend as it was.
 */
export async function chargeSpendOnce(
  tenantId: string,
  chargeId: string,
  month: string,
  costUsd: number,
  usage: Usage,
): Promise<boolean> {
  charges ??= buildChargeService();
  const now = new Date();
  const added = spendAdded(costUsd, usage);
  const service = charges;
  const result = await writeTransaction(() =>
    service.transaction
      .write(({ AiCharge: receipt, AiSpend: spend }) => [
        receipt
          .create({
            tenantId,
            chargeId,
            month,
            costMicroUsd: added.costMicroUsd,
            chargedAt: now.toISOString(),
            ttl: Math.floor(now.getTime() / 1000) + RECEIPT_DAYS * 86_400,
          })
          .commit(),
        spend.update({ tenantId, month }).add(added).commit(),
      ])
      .go(),
  );
  if (!result.canceled) {
    // Counted where it is charged, so the metric is the sum Tenants are billed, whichever worker ran.
    countMetric(BusinessMetric.AiSpendUsd, costUsd);
    return true;
  }
  // The receipt (member 0) already exists: this work was charged before.
  if (failedCondition(result) === 0) return false;
  throw new Error(`Charging AI spend failed: ${JSON.stringify(result.data)}`);
}

/** True when `chargeId` was already charged: its work is done, a redelivery has nothing to do. */
export async function alreadyCharged(tenantId: string, chargeId: string): Promise<boolean> {
  const { data } = await AiCharge.get({ tenantId, chargeId }).go();
  return data !== null;
}
