/**
 * An effect with no idempotency key of its own (an Owner email) runs at most once per receipt. Its
 * receipt is written after the effect: a receipt write that fails (throttled past the SDK's retries,
 * a 500) must not leave the effect to run again when the stream record is retried.
 */
import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { dynamo } from '../../functions/data/client.ts';
import { onceByReceipt } from '../../functions/data/reaction-receipts.ts';

const FAULT = 'fail-receipt-writes';

/** The next `times` writes of the receipt `receiptKey` fail as DynamoDB's throttling does, before any SDK retry. */
function failReceiptWrites(receiptKey: string, times: number): void {
  let left = times;
  dynamo().middlewareStack.add(
    (next) => async (args) => {
      const item = (args.input as { Item?: Record<string, unknown> }).Item;
      if (left > 0 && item?.receiptKey === receiptKey) {
        left -= 1;
        throw Object.assign(new Error('Throughput exceeds the current capacity of your table or index.'), {
          name: 'ProvisionedThroughputExceededException',
        });
      }
      return next(args);
    },
    { step: 'initialize', name: FAULT },
  );
}

afterEach(() => {
  dynamo().middlewareStack.remove(FAULT);
});

describe('onceByReceipt', () => {
  it('writes the receipt again when its write fails after the effect ran: a retried record does not repeat it', async () => {
    // Arrange
    const tenantId = randomUUID();
    const receiptKey = `owner-notice#inquiry#${randomUUID()}`;
    let runs = 0;
    failReceiptWrites(receiptKey, 2);
    // Act
    const first = await onceByReceipt(tenantId, receiptKey, async () => {
      runs += 1;
    });
    const retried = await onceByReceipt(tenantId, receiptKey, async () => {
      runs += 1;
    });
    // Assess
    expect(first).toBe(true);
    expect(retried).toBe(false);
    expect(runs).toBe(1);
  });

  it('a failing effect leaves no receipt: the retry runs it', async () => {
    // Arrange
    const tenantId = randomUUID();
    const receiptKey = `owner-notice#inquiry#${randomUUID()}`;
    let runs = 0;
    // Act
    await expect(
      onceByReceipt(tenantId, receiptKey, async () => {
        runs += 1;
        throw new Error('email service unavailable');
      }),
    ).rejects.toThrow('email service unavailable');
    const retried = await onceByReceipt(tenantId, receiptKey, async () => {
      runs += 1;
    });
    // Assess
    expect(retried).toBe(true);
    expect(runs).toBe(2);
  });
});
