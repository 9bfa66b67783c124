import type { TokenUsage } from '../../domain/enrichment.ts';
import { tierOf } from '../../domain/leads.ts';
import { type Score, ScoreOutput, type ScoringInput, scoreLocally } from '../../domain/scoring.ts';
import { config } from '../config.ts';
import { BedrockJsonProvider, type BedrockTask } from './bedrock-json.ts';
import { definePort, required } from './port.ts';

/** Where Lead Scoring runs: Bedrock in AWS, the documented rule-based scorer locally. */
export interface ScoringProvider {
  readonly name: string;
  score(input: ScoringInput): Promise<{ score: Score; usage: TokenUsage }>;
}

/**
 * The documented rule-based scorer (no model, no tokens): what a Tenant with AI off or at its
 * ceiling is scored by, in AWS too, and the local stack's provider.
 */
export class LocalScoringProvider implements ScoringProvider {
  readonly name = 'local-rules';
  async score(input: ScoringInput) {
    return { score: scoreLocally(input), usage: { inputTokens: 0, outputTokens: 0 } };
  }
}

const SYSTEM_PROMPT = `You score real-estate leads for an agency's sales team.
You receive one lead: contact completeness, inquiries (newest first, with the asked listing's price), activity count and search criteria.
Answer with one JSON object only, no prose:
{"score": integer 0-100, "buyer_type": one of investor|retiree|vacation_home|relocation|renter|local_buyer|unknown,
 "recommended_action": one of call_immediately|send_comps|nurture_sequence|low_priority, "reasons": [1-8 short reasons]}
Score high for recent, repeated, specific interest with a budget that fits; low for stale or anonymous contacts.
Base every reason on the data given; never invent facts.`;

/** Amazon Bedrock scores the Lead; the tier is derived from the score, never taken from the model. */
export class BedrockScoringProvider
  extends BedrockJsonProvider<ScoringInput, typeof ScoreOutput>
  implements ScoringProvider
{
  protected readonly task: BedrockTask<ScoringInput, typeof ScoreOutput> = {
    system: SYSTEM_PROMPT,
    user: (input) => JSON.stringify(input),
    maxTokens: 600,
    temperature: 0,
    output: ScoreOutput,
  };

  async score(input: ScoringInput) {
    const { output, usage } = await this.ask(input);
    return { score: { ...output, tier: tierOf(output.score) }, usage };
  }
}

const port = definePort<ScoringProvider>('scoring');

/** The bound scoring provider: Bedrock in Lambda, the rule-based scorer locally, a test's. */
export function scoringProvider(): ScoringProvider {
  return port.get();
}

/** Binds Bedrock (the Lambda entry of a row that `uses` bedrock); AI_MODEL_ID is required on first use. */
export function bindAwsAdapter(): void {
  port.bindAws(() => new BedrockScoringProvider(required(config().AI_MODEL_ID, 'AI_MODEL_ID', 'scoring')));
}

/** Binds a provider: the local stack's rules, or a test's. */
export function setScoringProvider(next: ScoringProvider | undefined): void {
  port.bind(next);
}
