import {
  BedrockRuntimeClient,
  ConverseCommand,
  type ConverseCommandInput,
  type ConverseCommandOutput,
} from '@aws-sdk/client-bedrock-runtime';
import { mockClient } from 'aws-sdk-client-mock';

/** A Bedrock Converse answer as the SDK returns it, carrying `text` (no content block when undefined). */
export function converseAnswer(
  text: string | undefined,
  usage = { inputTokens: 812, outputTokens: 240, totalTokens: 1052 },
): ConverseCommandOutput {
  return {
    output: { message: { role: 'assistant', content: text === undefined ? [] : [{ text }] } },
    stopReason: 'end_turn',
    usage,
    metrics: { latencyMs: 10 },
    $metadata: { httpStatusCode: 200 },
  };
}

/**
 * The Bedrock Runtime client mocked at the SDK edge (aws-sdk-client-mock): each Converse call gets
 * the next outcome (an answer, or an error to reject with). `inputs()` are the commands sent.
 */
export function mockBedrock(...outcomes: (ConverseCommandOutput | Error)[]) {
  const mock = mockClient(BedrockRuntimeClient);
  let behaviour = mock.on(ConverseCommand);
  for (const outcome of outcomes)
    behaviour = outcome instanceof Error ? behaviour.rejectsOnce(outcome) : behaviour.resolvesOnce(outcome);
  return {
    mock,
    inputs: (): ConverseCommandInput[] =>
      mock.commandCalls(ConverseCommand).map((call) => call.args[0].input),
  };
}

/** The error a promise rejects with (undefined if it resolves), caught at once. */
export const rejection = (promise: Promise<unknown>): Promise<unknown> =>
  promise.then(
    () => undefined,
    (error: unknown) => error,
  );

/** Puts the real Bedrock Runtime client back (afterEach). */
export const unmockBedrock = (): void => mockClient(BedrockRuntimeClient).restore();
