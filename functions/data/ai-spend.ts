import { BusinessMetric, countMetric } from '../platform/metrics.ts';
import { AiSpend } from './entities/ai-spend.ts';

export async function spentThisMonthUsd(tenantId: string, month: string): Promise<number> {
  const { data } = await AiSpend.get({ tenantId, month }).go();
  return (data?.costMicroUsd ?? 0) / 1_000_000;
}

/** Adds one run's usage to the month (atomic ADDs: concurrent workers cannot lose spend). */
export async function chargeSpend(
  tenantId: string,
  month: string,
  costUsd: number,
  usage: { inputTokens: number; outputTokens: number },
) {
  await AiSpend.update({ tenantId, month })
    .add({
      costMicroUsd: Math.round(costUsd * 1_000_000),
      inputTokens: usage.inputTokens,
      outputTokens: usage.outputTokens,
      runs: 1,
    })
    .go();
  // Counted where it is charged, so the metric is the sum Tenants are billed, whichever worker ran.
  countMetric(BusinessMetric.AiSpendUsd, costUsd);
}
