import type { ConverseCommandOutput } from '@aws-sdk/client-bedrock-runtime';

/** A Bedrock Converse answer carrying `text` (none when undefined), as the mocked client returns it. */
export function converseAnswer(
  text: string | undefined,
  usage = { inputTokens: 812, outputTokens: 240, totalTokens: 1052 },
): ConverseCommandOutput {
  return {
    output: { message: { role: 'assistant', content: text === undefined ? [] : [{ text }] } },
    stopReason: 'end_turn',
    usage,
    metrics: { latencyMs: 10 },
    $metadata: {},
  } as ConverseCommandOutput;
}

/** The error a promise rejects with (undefined if it resolves), caught at once. */
export const rejection = (promise: Promise<unknown>): Promise<unknown> =>
  promise.then(
    () => undefined,
    (error: unknown) => error,
  );
