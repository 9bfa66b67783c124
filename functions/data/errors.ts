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
