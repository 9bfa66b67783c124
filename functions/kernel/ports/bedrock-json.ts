import type * as z from 'zod/mini';
import type { TokenUsage } from '../../domain/enrichment.ts';
import '../zod.ts';
import { ProviderError } from './ai.ts';
import type { Converse, ConverseRequest } from './bedrock-converse.ts';

/**
 * One Converse call whose answer must be a JSON object of `schema`: the text is cut to its outer
 * braces (models sometimes wrap JSON in prose), parsed, and validated before anything uses it.
 */
export async function converseJson<S extends z.ZodMiniType>(
  converse: Converse,
  request: ConverseRequest,
  schema: S,
): Promise<{ output: z.infer<S>; usage: TokenUsage }> {
  const { text, usage } = await converse(request);
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
  return { output: output.data, usage };
}
