import type { TokenUsage } from '../../domain/enrichment.ts';
import { clientDefaults, lazyClient } from './sdk-client.ts';

export interface ConverseRequest {
  modelId: string;
  system: string;
  user: string;
  maxTokens: number;
  temperature: number;
}

export interface ConverseAnswer {
  /** The first text block of the model's message; undefined when it sent none. */
  text: string | undefined;
  usage: TokenUsage;
}

/** One single-turn Bedrock Converse call. */
export type Converse = (request: ConverseRequest) => Promise<ConverseAnswer>;

/**
 * A model answers in seconds and says nothing until it has finished, so a socket is given far
 * longer than a DynamoDB call's before it counts as dead.
 */
const MODEL_TIMEOUT_MS = 120_000;

const bedrockRuntime = lazyClient(
  () => import('@aws-sdk/client-bedrock-runtime'),
  ({ BedrockRuntimeClient }) =>
    new BedrockRuntimeClient({ ...clientDefaults(), requestHandler: { requestTimeout: MODEL_TIMEOUT_MS } }),
);

/**
 * Amazon Bedrock's Converse API through the SDK client. A refusal or throttling (after the SDK's
 * retries) rejects with the SDK's error unchanged: the worker's retry ladder or SQS redelivery
 * takes it from there.
 */
export function bedrockConverse(): Converse {
  return async (request) => {
    const [{ ConverseCommand }, client] = await bedrockRuntime();
    const answer = await client.send(
      new ConverseCommand({
        modelId: request.modelId,
        system: [{ text: request.system }],
        messages: [{ role: 'user', content: [{ text: request.user }] }],
        inferenceConfig: { maxTokens: request.maxTokens, temperature: request.temperature },
      }),
    );
    const content = answer.output?.message?.content ?? [];
    return {
      text: content.find((block) => block.text !== undefined)?.text,
      usage: { inputTokens: answer.usage?.inputTokens ?? 0, outputTokens: answer.usage?.outputTokens ?? 0 },
    };
  };
}
