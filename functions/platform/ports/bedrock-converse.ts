import type { TokenUsage } from '../../domain/enrichment.ts';
import { type CredentialSource, callAws, defaultCredentials } from '../aws/aws-http.ts';
import { config } from '../config.ts';

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
 * A model answers in seconds and says nothing until it has finished, so the socket is given far
 * longer than a DynamoDB call's.
 */
const MODEL_TIMEOUT_MS = 120_000;

interface ConverseResponse {
  output?: { message?: { content?: { text?: string }[] } };
  usage?: { inputTokens?: number; outputTokens?: number };
}

/**
 * Amazon Bedrock's Converse API (`POST /model/{modelId}/converse`) over a signed JSON request.
 * `endpoint` and `credentials` are for tests; the region's endpoint and the default chain otherwise.
 */
export function bedrockConverse(
  options: { endpoint?: string; credentials?: CredentialSource } = {},
): Converse {
  const credentials = options.credentials ?? defaultCredentials();
  return async (request) => {
    const region = config().AWS_REGION;
    const answer = (await callAws({
      service: 'bedrock',
      region,
      endpoint: options.endpoint ?? `https://bedrock-runtime.${region}.amazonaws.com`,
      path: `/model/${encodeURIComponent(request.modelId)}/converse`,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        system: [{ text: request.system }],
        messages: [{ role: 'user', content: [{ text: request.user }] }],
        inferenceConfig: { maxTokens: request.maxTokens, temperature: request.temperature },
      }),
      credentials,
      attemptTimeoutMs: MODEL_TIMEOUT_MS,
    })) as ConverseResponse;
    return {
      text: answer.output?.message?.content?.find((c) => c.text !== undefined)?.text,
      usage: { inputTokens: answer.usage?.inputTokens ?? 0, outputTokens: answer.usage?.outputTokens ?? 0 },
    };
  };
}
