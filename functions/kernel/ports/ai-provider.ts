import { config } from '../config.ts';
import type { EnrichmentProvider } from './ai.ts';
import { BedrockEnrichmentProvider } from './bedrock-ai.ts';
import { definePort, required } from './port.ts';

const port = definePort<EnrichmentProvider>('enrichment');

/** The bound enrichment provider: Bedrock in Lambda, the deterministic one locally, a test's. */
export function enrichmentProvider(): EnrichmentProvider {
  return port.get();
}

/** Binds Bedrock (the Lambda entry of a row that `uses` bedrock); AI_MODEL_ID is required on first use. */
export function bindAwsAdapter(): void {
  port.bindAws(
    () => new BedrockEnrichmentProvider(required(config().AI_MODEL_ID, 'AI_MODEL_ID', 'enrichment')),
  );
}

/** Binds a provider: the local stack's deterministic one, or a test's (e.g. one that fails). */
export function setEnrichmentProvider(next: EnrichmentProvider | undefined): void {
  port.bind(next);
}
