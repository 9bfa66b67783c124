import { type Entity, Service, type TransactWriteEntity } from 'electrodb';
import { BusinessMetric, countMetric } from '../kernel/metrics.ts';
import { AiCharge } from './entities/ai-charge.ts';
import { AiSpend } from './entities/ai-spend.ts';
import { CONTENDED_ATTEMPTS, RETRY, withOptimisticRetry } from './optimistic.ts';

export async function spentThisMonthUsd(tenantId: string, month: string): Promise<number> {
  // Consistent: it decides whether a run may spend, and a run a moment ago must count.
  const { data } = await AiSpend.get({ tenantId, month }).go({ consistent: true });
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

/** An entity as a transaction's callback gets it (its writes `commit` into the transaction). */
type InTransaction<E> =
  E extends Entity<infer A, infer F, infer C, infer S> ? TransactWriteEntity<A, F, C, S> : never;

/** What `chargeWrites` writes with: any Service's transaction that holds AiCharge and AiSpend. */
export interface ChargeEntities {
  AiCharge: InTransaction<typeof AiCharge>;
  AiSpend: InTransaction<typeof AiSpend>;
}

/** One AI run to charge, keyed by the work it paid for (`enrich#<requestId>`, `score#<leadId>#<requestedAt>`). */
export interface AiRunCharge {
  tenantId: string;
  chargeId: string;
  month: string;
  costUsd: number;
  usage: Usage;
}

/**
 * The transaction items that charge a run once: its receipt, created only if absent (always the
 * first item, so a cancellation's reasons say whether the run was already charged), then the
 * month's spend. `withSpend: false` writes the receipt alone (a run that used no model, whose
 * receipt still marks its work done).
 */
export function chargeWrites(
  entities: ChargeEntities,
  charge: AiRunCharge,
  options: { withSpend: boolean } = { withSpend: true },
) {
  const now = new Date();
  const added = spendAdded(charge.costUsd, charge.usage);
  const receipt = entities.AiCharge.create({
    tenantId: charge.tenantId,
    chargeId: charge.chargeId,
    month: charge.month,
    costMicroUsd: options.withSpend ? added.costMicroUsd : 0,
    chargedAt: now.toISOString(),
    ttl: Math.floor(now.getTime() / 1000) + RECEIPT_DAYS * 86_400,
  }).commit();
  if (!options.withSpend) return [receipt];
  return [
    receipt,
    entities.AiSpend.update({ tenantId: charge.tenantId, month: charge.month }).add(added).commit(),
  ];
}

/** Counted where it is charged, so the metric is the sum Tenants are billed, whichever worker ran. */
export function countCharged(charge: AiRunCharge): void {
  countMetric(BusinessMetric.AiSpendUsd, charge.costUsd);
}

/** How a charge transaction's cancellation reads: the reasons are in the order of `chargeWrites`. */
type CancellationReason = { rejected: boolean; code: string };

/**
 * Two workers charging the same month at once cancel one transaction with `TransactionConflict`
 * (DynamoDB serialises writes to the one AiSpend item). That is no failure of the charge: it is
 * tried again. Thrown away, it would leave the run uncharged for good, because the redelivered
 * message finds the listing already enriched and returns.
 */
const isConflict = (reasons: CancellationReason[]) => reasons.some((r) => r.code === 'TransactionConflict');

let charges: ReturnType<typeof buildChargeService> | undefined;
function buildChargeService() {
  return new Service({ AiCharge, AiSpend });
}

/**
 * Charges one AI run to the month at most once per `chargeId` (the work it paid for): the receipt
 * is created only if absent, in the same transaction as the spend. Returns false when `chargeId`
 * was already charged (a redelivered message), leaving the spend as it was. A transaction cancelled
 * by a concurrent charge of the same month is retried.
 */
export async function chargeSpendOnce(
  tenantId: string,
  chargeId: string,
  month: string,
  costUsd: number,
  usage: Usage,
): Promise<boolean> {
  charges ??= buildChargeService();
  const charge: AiRunCharge = { tenantId, chargeId, month, costUsd, usage };
  const service = charges;
  return withOptimisticRetry(
    async () => {
      const result = await service.transaction.write((entities) => chargeWrites(entities, charge)).go();
      if (!result.canceled) {
        countCharged(charge);
        return true;
      }
      const reasons = result.data as CancellationReason[];
      if (reasons[0]?.code === 'ConditionalCheckFailed') return false;
      if (isConflict(reasons)) return RETRY;
      throw new Error(`Charging AI spend failed: ${JSON.stringify(reasons)}`);
    },
    {
      attempts: CONTENDED_ATTEMPTS,
      exhausted: () => {
        throw new Error(`Charging AI spend kept conflicting: ${chargeId}`);
      },
    },
  );
}

/** True when `chargeId` was already charged: its work is done, a redelivery has nothing to do. */
export async function alreadyCharged(tenantId: string, chargeId: string): Promise<boolean> {
  // Consistent: a charge written a moment ago by another delivery of the request must be seen.
  const { data } = await AiCharge.get({ tenantId, chargeId }).go({ consistent: true });
  return data !== null;
}
