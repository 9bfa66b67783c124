/**
 * What the soak's driver knows it did (the ledger) and what the audit read back afterwards (the
 * observation). Plain data: the audit's rules (audit.ts) are functions of the two, so that a test can
 * plant a loss in either.
 */

/** The three receivers every Tenant subscribes an endpoint to. */
export type ReceiverName = 'healthy' | 'flaky' | 'gone';
export const RECEIVERS: readonly ReceiverName[] = ['healthy', 'flaky', 'gone'];

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

export interface TenantLedger {
  tenantId: string;
  slug: string;
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
}

/** One event of a Tenant's log, as GET /v1/events answers it. */
export interface ObservedEvent {
  id: string;
  type: string;
  subjectId: string;
}

export interface ObservedDelivery {
  eventId: string;
  status: 'pending' | 'succeeded' | 'failed';
  attemptCount: number;
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
}

export interface Observation {
  tenants: Record<string, ObservedTenant>;
  received: ReceivedCall[];
  /** Messages in a local dead-letter queue (`<queue>-dlq`). */
  deadLetters: { queue: string; id: string; body: string }[];
  /** Records on the stream's local on-failure destination. */
  parked: { sequenceNumber: string; eventId: string; reason: string }[];
}
