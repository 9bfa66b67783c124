import * as z from 'zod/mini';
import '../zod.ts';

/**
 * The AI queue's messages, defined once: the stream reactions that send them, the worker that parses
 * them (functions/workers/ai.ts) and the services that run them all read these types.
 */

/** Asks for a Lead to be (re)scored: after an Inquiry or a criteria change. */
export const ScoreMessage = z.object({
  type: z.literal('score'),
  tenantId: z.string(),
  leadId: z.string(),
  /** The time of the change that asked for it: with the Lead id, the request's identity (charged once). */
  requestedAt: z.string(),
  /**
   * The Inquiry that asked for it, if one did: the worker reads it by id, as the Lead's inquiry index
   * (a GSI, eventually consistent) may not hold it yet when the message arrives.
   */
  inquiryId: z.optional(z.string()),
});
export type ScoreMessage = z.infer<typeof ScoreMessage>;

/** Asks for a listing's texts to be enriched: one request id per request, attempts counted from 1. */
export const EnrichMessage = z.object({
  type: z.literal('enrich'),
  tenantId: z.string(),
  propertyId: z.string(),
  requestId: z.string(),
  attempt: z.number().check(z.int(), z.gte(1)),
});
export type EnrichMessage = z.infer<typeof EnrichMessage>;

/**
 * Asks for one page of a Tenant's held enrichments to be resumed (the daily job sends one per
 * Tenant): `checkpoint` is where the previous page of that Tenant's run stopped, absent on its first.
 */
export const ResumeMessage = z.object({
  type: z.literal('resume'),
  tenantId: z.string(),
  checkpoint: z.optional(z.string()),
});
export type ResumeMessage = z.infer<typeof ResumeMessage>;

/** What the AI queue carries: listing enrichment and Lead (re)scoring requests, resume pages. */
export const AiMessage = z.discriminatedUnion('type', [ScoreMessage, EnrichMessage, ResumeMessage]);
export type AiMessage = z.infer<typeof AiMessage>;
