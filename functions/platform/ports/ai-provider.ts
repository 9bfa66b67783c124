import { config } from '../config.ts';
import type { EnrichmentProvider } from './ai.ts';
import { BedrockEnrichmentProvider } from './bedrock-ai.ts';
import { LocalEnrichmentProvider } from './local-ai.ts';

let provider: EnrichmentProvider | undefined;

/** Bedrock when a model is configured (AWS), the deterministic local provider otherwise. */
export function enrichmentProvider(): EnrichmentProvider {
  const modelId = config().AI_MODEL_ID;
  provider ??= modelId ? new BedrockEnrichmentProvider(modelId) : new LocalEnrichmentProvider();
  return provider;
}

/** Tests swap the provider (e.g. one that fails, to walk the retry ladder). */
export function setEnrichmentProvider(next: EnrichmentProvider | undefined): void {
  provider = next;
}
