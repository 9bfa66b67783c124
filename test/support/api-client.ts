/**
 * A typed client of the API for the e2e tests, built on the contract (functions/contract/*.ts):
 * an operation's success body is the `z.infer` output of the schema its handler answers with, so a
 * test reads `lead.email` typed as the API documents it instead of a hand-written copy of the shape.
 * Every call still goes through `TestApi.call`, which checks the answer against docs/openapi.json.
 *
 * test/unit/api-client.test.ts checks that each schema below is, as JSON Schema, the one the
 * operation's handler declares for its success status.
 */
import { expect } from 'vitest';
import type * as z from 'zod/mini';
import { ActivityOut, ActivityUpdateAnswer } from '../../functions/contract/activities.ts';
import { AgentOut } from '../../functions/contract/agents.ts';
import { EventOut } from '../../functions/contract/events.ts';
import { InquiryOut } from '../../functions/contract/inquiries.ts';
import { LeadCriteriaOut, LeadMatchList, MatchSendOut } from '../../functions/contract/lead-criteria.ts';
import { LeadPropertyList, LeadPropertyOut } from '../../functions/contract/lead-properties.ts';
import {
  LeadCreateAnswer,
  LeadIngestOut,
  LeadOut,
  LeadUpdateAnswer,
} from '../../functions/contract/leads.ts';
import { PropertyOut } from '../../functions/contract/properties.ts';
import { type ErrorOut, pageOf, type ValidationErrorOut } from '../../functions/contract/shared.ts';
import { EndpointOut, EndpointWithSecretOut, SecretOut } from '../../functions/contract/webhooks.ts';
import { type OperationId, routeFor } from '../../functions/routes.ts';
import type { TestApi } from './http.ts';

/** The body schema of each operation's success answer (2xx with a body). */
export const SUCCESS_BODIES = {
  createProperty: PropertyOut,
  getProperty: PropertyOut,
  updateProperty: PropertyOut,
  upsertPropertyByRef: PropertyOut,
  listProperties: pageOf(PropertyOut),
  createLead: LeadCreateAnswer,
  getLead: LeadOut,
  updateLead: LeadUpdateAnswer,
  listLeads: pageOf(LeadOut),
  ingestLead: LeadIngestOut,
  getInquiry: InquiryOut,
  createActivity: ActivityOut,
  getActivity: ActivityOut,
  updateActivity: ActivityUpdateAnswer,
  listActivities: pageOf(ActivityOut),
  listLeadActivities: pageOf(ActivityOut),
  linkLeadProperty: LeadPropertyOut,
  listLeadProperties: LeadPropertyList,
  getLeadCriteria: LeadCriteriaOut,
  putLeadCriteria: LeadCriteriaOut,
  listLeadMatches: LeadMatchList,
  sendLeadMatches: MatchSendOut,
  getAgent: AgentOut,
  listAgents: pageOf(AgentOut),
  getEvent: EventOut,
  createWebhookSubscription: EndpointWithSecretOut,
  getWebhook: EndpointOut,
  updateWebhook: EndpointOut,
  rotateWebhookSecret: SecretOut,
} as const satisfies Partial<Record<OperationId, z.ZodMiniType>>;

/** An operation whose success body the client types. */
export type TypedOperation = keyof typeof SUCCESS_BODIES;

/** The success body of `Op`, as the API answers it. */
export type Output<Op extends TypedOperation> = z.output<(typeof SUCCESS_BODIES)[Op]>;

/** An error answer's body: `{detail: string}`, or the 422 list of items. */
export type ErrorBody = z.output<typeof ErrorOut> | z.output<typeof ValidationErrorOut>;

/** What goes into a request besides the operation. */
export interface RequestOptions {
  /** The path parameters, by their name in the route's path (`lead_id`). */
  readonly path?: Readonly<Record<string, string>>;
  readonly query?: Readonly<Record<string, string | number | boolean | undefined>>;
  readonly body?: unknown;
  /** The API key; `null` sends none. @default the TestApi's key */
  readonly key?: string | null;
  readonly headers?: Readonly<Record<string, string>>;
}

/** The answer of a request, its body still unchecked. */
export interface Answer {
  status: number;
  headers: Headers;
  body: unknown;
  text: string;
}

/** The path of operation `op` with its parameters filled in (each encoded as one segment). */
export function pathOf(op: OperationId, options: Pick<RequestOptions, 'path' | 'query'> = {}): string {
  const route = routeFor(op);
  const path = route.path.replace(/\{(\w+)\}/g, (_all, name: string) => {
    const value = options.path?.[name];
    if (value === undefined) throw new Error(`${op} needs path parameter ${name}`);
    return encodeURIComponent(value);
  });
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(options.query ?? {})) {
    if (value !== undefined) query.set(name, String(value));
  }
  const search = query.toString();
  return search ? `${path}?${search}` : path;
}

/** The typed client over a TestApi. */
export interface ApiClient {
  /** Sends operation `op` and returns the answer, whatever its status. */
  send(op: OperationId, options?: RequestOptions): Promise<Answer>;
  /**
   * Sends `op`, expects `status` (or any 2xx), and returns the success body typed by the contract.
   * On another status the test fails with the answer's text.
   */
  ok<Op extends TypedOperation>(op: Op, options?: RequestOptions, status?: number): Promise<Output<Op>>;
  /** Sends `op`, expects error `status`, and returns the error body. */
  refused(op: OperationId, status: number, options?: RequestOptions): Promise<ErrorBody>;
}

/** A typed client that calls through `api` (and so through its contract check). */
export function apiClient(api: TestApi): ApiClient {
  const send = async (op: OperationId, options: RequestOptions = {}): Promise<Answer> =>
    api.call(routeFor(op).method, pathOf(op, options), {
      ...(options.key === undefined ? {} : { key: options.key }),
      ...(options.body === undefined ? {} : { body: options.body }),
      ...(options.headers ? { headers: { ...options.headers } } : {}),
    });
  return {
    send,
    async ok(op, options, status) {
      const answer = await send(op, options);
      if (status === undefined) expect(answer.status, `${op}: ${answer.text}`).toBeLessThan(300);
      else expect(answer.status, `${op}: ${answer.text}`).toBe(status);
      // The answer passed the document's schema of this status (TestApi.call): the contract's output type.
      return answer.body as Output<typeof op>;
    },
    async refused(op, status, options) {
      const answer = await send(op, options);
      expect(answer.status, `${op}: ${answer.text}`).toBe(status);
      return answer.body as ErrorBody;
    },
  };
}

/** A 422 body, or an answer carrying one. */
type Refusal = { detail: unknown } | { body: unknown };

/** The `loc` of each item of a 422 (`[['body', 'email'], ['query', 'limit']]`), in the answer's order. */
export function locs(refusal: Refusal): unknown[][] {
  const body = ('body' in refusal ? refusal.body : refusal) as { detail?: unknown };
  if (!Array.isArray(body?.detail)) throw new Error(`not a 422 body: ${JSON.stringify(body)}`);
  return (body.detail as { loc: unknown[] }[]).map((item) => item.loc);
}

/** The distinct places a 422 names (one field may carry more than one message). */
export function distinctLocs(refusal: Refusal): unknown[][] {
  return [...new Map(locs(refusal).map((loc) => [JSON.stringify(loc), loc])).values()];
}
