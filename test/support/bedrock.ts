import { json, type Reply } from './aws-stand-in.ts';

/** A Bedrock Converse answer as the service sends it, carrying `text` (no content block when undefined). */
export function converseAnswer(
  text: string | undefined,
  usage = { inputTokens: 812, outputTokens: 240, totalTokens: 1052 },
) {
  return {
    output: { message: { role: 'assistant', content: text === undefined ? [] : [{ text }] } },
    stopReason: 'end_turn',
    usage,
    metrics: { latencyMs: 10 },
  };
}

/** A stand-in's reply with a Converse answer carrying `text`. */
export const converseReply = (
  text: string | undefined,
  usage?: Parameters<typeof converseAnswer>[1],
): Reply => json(200, converseAnswer(text, usage), { 'content-type': 'application/json' });

/** A stand-in's reply with a Bedrock refusal: the error type in `x-amzn-ErrorType`, the message in the body. */
export const bedrockError = (status: number, type: string, message: string): Reply =>
  json(
    status,
    { message },
    {
      'content-type': 'application/json',
      'x-amzn-ErrorType': `${type}:http://internal.amazon.com/coral/com.amazon.bedrock/`,
    },
  );

/** The error a promise rejects with (undefined if it resolves), caught at once. */
export const rejection = (promise: Promise<unknown>): Promise<unknown> =>
  promise.then(
    () => undefined,
    (error: unknown) => error,
  );
