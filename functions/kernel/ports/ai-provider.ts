import { config } from '../config.ts';
import type { EnrichmentProvider } from './ai.ts';
import { BedrockEnrichmentProvider } from './bedrock-ai.ts';
import { definePort, required } from './port.ts';

const port = definePort<EnrichmentProvider>(
  'enrichment',
  () => new BedrockEnrichmentProvider(required(config().AI_MODEL_ID, 'AI_MODEL_ID', 'enrichment')),
);

/** The enrichment provider: Bedrock in Lambda (AI_MODEL_ID required), the bound provider elsewhere. */
export function enrichmentProvider(): EnrichmentProvider {
  return port.get();
}

/** Binds a provider: the local stack's deterministic one, or a test's (e.g. one that fails). */
export function setEnrichmentProvider(next: EnrichmentProvider | undefined): void {
  port.bind(next);
}
