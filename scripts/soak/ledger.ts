/**
 * What the soak's driver knows it did (the ledger) and what the audit read back afterwards (the
 * observation). Plain data: the audit's rules (audit.ts) are functions of the two, so that a test can
 * plant a loss in either.
 */

/** The receivers every Tenant subscribes an endpoint to (scripts/soak/receivers.ts). */
export type ReceiverName = 'healthy' | 'flaky' | 'gone' | 'ladder';
export const RECEIVERS: readonly ReceiverName[] = ['healthy', 'flaky', 'gone', 'ladder'];

/** One POST a receiver got. */
export interface ReceivedCall {
  /** The endpoint it was addressed to (the receiver's path names it). */
  endpointId: string;
  webhookId: string;
  eventType: string;
  /** Whether `standardwebhooks` verified it with the endpoint's secret. */
  verified: boolean;
  /** Milliseconds since the epoch, on arrival. */
  at: number;
  /** What the receiver answered (0: it slept past the 10 s and the sender gave up). */
  answered: number;
}

export interface LedgerEndpoint {
  id: string;
  receiver: ReceiverName;
  secret: string;
  events: readonly string[];
}

export interface LedgerLead {
  email: string;
  phone: string;
  /** Status changes the driver made that changed the status (each one `lead.status_changed`). */
  statusMoves: number;
  status: string;
  archived: boolean;
}

export interface LedgerProperty {
  /** Price changes the driver made that changed the price (each one `property.price_changed`). */
  priceChanges: number;
  price: number;
  archived: boolean;
}

/** An ingest sent twice with one Idempotency-Key: the second answer must be the first. */
export interface LedgerReplay {
  idempotencyKey: string;
  first: { status: number; body: string };
  second: { status: number; body: string };
}

/** One event the interface says a change the driver saw answered must produce (expected.ts). */
export interface ExpectedEvent {
  type: string;
  subjectId: string;
  /** The event's key fields as `eventKey` writes them ('' for a type without any). */
  key: string;
  /** The driver's operation that asked for it, for a failure message. */
  because: string;
}

export interface TenantLedger {
  tenantId: string;
  slug: string;
  /** Every event the driver's answered changes call for, in the order it saw them answered. */
  expectedEvents: ExpectedEvent[];
  /** Scoring runs each Lead must get (one per Inquiry it made: an Inquiry has its Lead scored). */
  scoringRuns: Record<string, number>;
  /** Listings created with `ai_enrichment`, each to be enriched once. */
  enriched: string[];
  /** Owner emails each Lead's Inquiries must send (an Inquiry of a Lead with an Owner: one email). */
  ownerEmails: Record<string, number>;
  /** Admin emails about an endpoint disabled for a 410 (one per Admin; the soak has one). */
  disableNotices: number;
  leads: Record<string, LedgerLead>;
  /** Inquiries whose creation was answered (ingest, website). */
  inquiries: string[];
  properties: Record<string, LedgerProperty>;
  imports: { propertyId: string; importId: string }[];
  replays: LedgerReplay[];
  /** New contacts sent several times at once: every answer must name one Lead. */
  concurrent: { email: string; leadIds: string[] }[];
  endpoints: LedgerEndpoint[];
}

export interface Ledger {
  seed: number;
  minutes: number;
  tenants: TenantLedger[];
  /** Requests answered, by operation. */
  requests: Record<string, number>;
  /** Answers 5xx (the service must never answer one to good input). */
  serverErrors: { op: string; status: number; body: string }[];
  /** Requests sent again, by why (`down`: no answer, the API restarting; `409`, `429`). */
  retries: Record<string, number>;
  /** Requests given up at the end of traffic without an answer (the API was down): outcome unknown. */
  unanswered: number;
  /** `kill -9`s by part. */
  kills: Record<string, number>;
  /** When the gone receiver started answering 410 (ms since the epoch). */
  goneSince: number;
  /** The ladder's waits as the soak shrank them (RETRY_DELAY_SCALE). */
  retryDelayScale: number;
  /** The webhook-ids the ladder receiver failed every time, by endpoint (each must walk the ladder). */
  doomed: Record<string, string[]>;
}

/** One event of a Tenant's log, as GET /v1/events answers it. */
export interface ObservedEvent {
  id: string;
  type: string;
  subjectId: string;
  /** Its key fields (expected.ts `eventKey`). */
  key: string;
}

/** One email of a Tenant's local outbox. */
export interface ObservedEmail {
  to: string;
  subject: string;
  /** The Lead an Owner notice is about (its text names it), or null. */
  leadId: string | null;
}

export interface ObservedDelivery {
  id: string;
  eventId: string;
  status: 'pending' | 'succeeded' | 'failed';
  attemptCount: number;
  /** When each recorded attempt was made (ms since the epoch; the last 20). */
  attemptTimes: number[];
}

export interface ObservedTenant {
  events: ObservedEvent[];
  leads: { id: string; email: string | null; phone: string | null; active: boolean }[];
  inquiryIds: string[];
  imports: Record<string, string>;
  endpoints: Record<
    string,
    { enabled: boolean; disabledReason: string | null; deliveries: ObservedDelivery[] }
  >;
  /** The month's AI spend counter (`runs`) and the receipts that charged spend. */
  aiRuns: number;
  aiChargedReceipts: number;
  /** Scoring receipts by Lead (`score#<leadId>#<requestedAt>`): one per scoring request charged. */
  scoreReceipts: Record<string, number>;
  /** Enrichment receipts (`enrich#<requestId>`): one per enrichment run. */
  enrichReceipts: number;
  /** `enrichment_status` of each listing the ledger expects enriched. */
  enrichment: Record<string, string | null>;
  emails: ObservedEmail[];
}

export interface Observation {
  tenants: Record<string, ObservedTenant>;
  received: ReceivedCall[];
  /** Messages in a local dead-letter queue (`<queue>-dlq`). */
  deadLetters: { queue: string; id: string; body: string }[];
  /** Records on the stream's local on-failure destination. */
  parked: { sequenceNumber: string; eventId: string; reason: string }[];
  /** The Scheduler stand-in's log (scripts/local/adapters/webhook-ladder.ts): each schedule's life. */
  schedules: { at: number; kind: string; schedule: string }[];
}
