import type * as z from 'zod/mini';
import type { TokenUsage } from '../../domain/enrichment.ts';
import '../zod.ts';
import { ProviderError } from './ai.ts';
import { bedrockConverse, type Converse } from './bedrock-converse.ts';

/** One kind of question put to a model: its instructions, the message an input becomes, and the answer's schema. */
export interface BedrockTask<Input, Output extends z.ZodMiniType> {
  /** The system prompt: what to do and the one JSON shape to answer in. */
  readonly system: string;
  /** The single user message for one input. */
  readonly user: (input: Input) => string;
  readonly maxTokens: number;
  readonly temperature: number;
  /** What the answer must be; nothing uses a model's output before it passes this. */
  readonly output: Output;
}

/**
 * A provider backed by an Amazon Bedrock model through the Converse API, asking one `task`: each AI
 * port's Bedrock adapter (enrichment, scoring) is such a task and the method its port names. The
 * answer's text is cut to its outer braces (models sometimes wrap JSON in prose), parsed, and
 * validated; an answer that fails any step is a ProviderError, which the caller's retry ladder takes.
 */
export abstract class BedrockJsonProvider<Input, Output extends z.ZodMiniType> {
  readonly name = 'bedrock';
  protected abstract readonly task: BedrockTask<Input, Output>;
  readonly #converse: Converse;
  readonly #modelId: string;

  constructor(modelId: string, converse: Converse = bedrockConverse()) {
    this.#modelId = modelId;
    this.#converse = converse;
  }

  /** One Converse call for `input`: the validated JSON the model answered, and the tokens it took. */
  protected async ask(input: Input): Promise<{ output: z.infer<Output>; usage: TokenUsage }> {
    const { system, user, maxTokens, temperature, output: schema } = this.task;
    const { text, usage } = await this.#converse({
      modelId: this.#modelId,
      system,
      user: user(input),
      maxTokens,
      temperature,
    });
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
}
