import { BedrockRuntimeClient, ConverseCommand } from '@aws-sdk/client-bedrock-runtime';
import {
  EnrichmentOutput,
  type EnrichmentRequest,
  MAX_HIGHLIGHTS,
  SEO_DESCRIPTION_MAX,
} from '../../domain/enrichment.ts';
import { type EnrichmentProvider, ProviderError } from './ai.ts';

const SYSTEM_PROMPT = `You write real-estate listing copy for an agency website.
You receive a listing's facts and its text in its source language, and the list of languages to produce.
Answer with one JSON object only, no prose, of the form:
{"languages": {"<language>": {"title": string|null, "description": string|null, "highlights": [string], "seo_description": string}}}
Rules:
- For the source language, title and description are null (the agency wrote them).
- For every other language, title and description are faithful translations of the source text.
- highlights: at most ${MAX_HIGHLIGHTS} short selling points (each under 120 characters) in that language, only from the facts.
- seo_description: at most ${SEO_DESCRIPTION_MAX} characters in that language.
- Never invent facts (no views, amenities, sizes or prices that are not given).`;

/** Amazon Bedrock through the Converse API; the model's JSON is validated before it is used. */
export class BedrockEnrichmentProvider implements EnrichmentProvider {
  readonly name = 'bedrock';
  readonly #client: BedrockRuntimeClient;
  readonly #modelId: string;

  constructor(modelId: string, client = new BedrockRuntimeClient({})) {
    this.#modelId = modelId;
    this.#client = client;
  }

  async enrich(request: EnrichmentRequest) {
    const response = await this.#client.send(
      new ConverseCommand({
        modelId: this.#modelId,
        system: [{ text: SYSTEM_PROMPT }],
        messages: [
          {
            role: 'user',
            content: [
              {
                text: JSON.stringify({
                  source_language: request.sourceLanguage,
                  languages: request.languages,
                  facts: request.facts,
                }),
              },
            ],
          },
        ],
        inferenceConfig: { maxTokens: 4000, temperature: 0.2 },
      }),
    );
    const text = response.output?.message?.content?.find((c) => c.text !== undefined)?.text;
    if (!text) throw new ProviderError('Bedrock returned no text');
    const json = text.slice(text.indexOf('{'), text.lastIndexOf('}') + 1);
    let parsed: unknown;
    try {
      parsed = JSON.parse(json);
    } catch {
      throw new ProviderError('Bedrock returned text that is not JSON');
    }
    const output = EnrichmentOutput.safeParse(parsed);
    if (!output.success)
      throw new ProviderError(`Bedrock output failed validation: ${output.error.issues[0]?.message}`);
    return {
      output: output.data,
      usage: {
        inputTokens: response.usage?.inputTokens ?? 0,
        outputTokens: response.usage?.outputTokens ?? 0,
      },
    };
  }
}
