import { type BedrockRuntimeClient, ConverseCommand } from '@aws-sdk/client-bedrock-runtime';
import type * as z from 'zod/mini';
import type { TokenUsage } from '../../domain/enrichment.ts';
import '../zod.ts';
import { ProviderError } from './ai.ts';

/**
 * One Converse call whose answer must be a JSON object of `schema`: the text is cut to its outer
 * braces (models sometimes wrap JSON in prose), parsed, and validated before anything uses it.
 */
export async function converseJson<S extends z.ZodMiniType>(
  client: BedrockRuntimeClient,
  request: { modelId: string; system: string; user: string; maxTokens: number; temperature: number },
  schema: S,
): Promise<{ output: z.infer<S>; usage: TokenUsage }> {
  const response = await client.send(
    new ConverseCommand({
      modelId: request.modelId,
      system: [{ text: request.system }],
      messages: [{ role: 'user', content: [{ text: request.user }] }],
      inferenceConfig: { maxTokens: request.maxTokens, temperature: request.temperature },
    }),
  );
  const text = response.output?.message?.content?.find((c) => c.text !== undefined)?.text;
  if (!text) throw new ProviderError('Bedrock returned no text');
  let parsed: unknown;
  try {
    parsed = JSON.parse(text.slice(text.indexOf('{'), text.lastIndexOf('}') + 1));
  } catch {
    throw new ProviderError('Bedrock returned text that is not JSON');
  }
  const output = schema.safeParse(parsed);
  if (!output.success)
    throw new ProviderError(`Bedrock output failed validation: ${output.error.issues[0]?.message}`);
  return {
    output: output.data,
    usage: { inputTokens: response.usage?.inputTokens ?? 0, outputTokens: response.usage?.outputTokens ?? 0 },
  };
}
