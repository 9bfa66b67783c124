import type { EnrichmentOutput, EnrichmentRequest, TokenUsage } from '../../domain/enrichment.ts';

/** Where AI work runs: Amazon Bedrock in AWS, a deterministic local provider elsewhere. */
export interface EnrichmentProvider {
  readonly name: string;
  enrich(request: EnrichmentRequest): Promise<{ output: EnrichmentOutput; usage: TokenUsage }>;
}

export class ProviderError extends Error {}
