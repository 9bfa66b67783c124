import {
  EnrichmentOutput,
  type EnrichmentRequest,
  MAX_HIGHLIGHTS,
  SEO_DESCRIPTION_MAX,
} from '../../domain/enrichment.ts';
import type { EnrichmentProvider } from './ai.ts';
import { BedrockJsonProvider, type BedrockTask } from './bedrock-json.ts';

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

/** Amazon Bedrock writes the listing copy; its JSON is validated before it is used. */
export class BedrockEnrichmentProvider
  extends BedrockJsonProvider<EnrichmentRequest, typeof EnrichmentOutput>
  implements EnrichmentProvider
{
  protected readonly task: BedrockTask<EnrichmentRequest, typeof EnrichmentOutput> = {
    system: SYSTEM_PROMPT,
    user: (request) =>
      JSON.stringify({
        source_language: request.sourceLanguage,
        languages: request.languages,
        facts: request.facts,
      }),
    maxTokens: 4000,
    temperature: 0.2,
    output: EnrichmentOutput,
  };

  enrich(request: EnrichmentRequest) {
    return this.ask(request);
  }
}
