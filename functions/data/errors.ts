/** True when DynamoDB refused a write because its condition did not hold (ElectroDB wraps the cause). */
export function isConditionalFailure(error: unknown): boolean {
  let current: unknown = error;
  for (let depth = 0; current && depth < 5; depth++) {
    const e = current as { name?: string; cause?: unknown; message?: string };
    if (e.name === 'ConditionalCheckFailedException') return true;
    if (typeof e.message === 'string' && e.message.includes('conditional request failed')) return true;
    current = e.cause;
  }
  return false;
}

/**
 * True when DynamoDB refused a call for capacity (after the SDK's own retries): the item's
 * partition is over its throughput, a state that passes, unlike a fault.
 */
export function isThrottled(error: unknown): boolean {
  let current: unknown = error;
  for (let depth = 0; current && depth < 5; depth++) {
    const name = (current as { name?: string }).name;
    if (name === 'ProvisionedThroughputExceededException' || name === 'ThrottlingException') return true;
    current = (current as { cause?: unknown }).cause;
  }
  return false;
}

/**
 * ElectroDB `go()` option for the reads of the hot paths: a failed call rejects with the AWS SDK's
 * own error instead of an ElectroError. ElectroDB otherwise builds that ElectroError, stack trace
 * and all, before every call in case one fails: about 3% of a Lead request's CPU. A read
 * that fails answers 500 either way, and the SDK error's async stack still names the caller.
 * Writes keep the default (isConditionalFailure reads both forms).
 */
export const SDK_ERRORS = { originalErr: true } as const;

/**
 * The numeric attributes of the item a conditional update was refused on, as DynamoDB returned it
 * (`ReturnValuesOnConditionCheckFailure: ALL_OLD`, in wire form: the document client does not
 * convert an error's item). Empty when there was no item. The rate-limit counters read it.
 */
export function countersOfRefusal(error: unknown): Record<string, number> {
  let current: unknown = error;
  for (let depth = 0; current && depth < 5; depth++) {
    const item = (current as { Item?: Record<string, { N?: string }> }).Item;
    if (item) {
      return Object.fromEntries(
        Object.entries(item)
          .filter(([, value]) => typeof value?.N === 'string')
          .map(([name, value]) => [name, Number(value.N)]),
      );
    }
    current = (current as { cause?: unknown }).cause;
  }
  return {};
}
