/**
 * What the audit reads back once the traffic stopped: each Tenant's event log, Leads, Inquiries,
 * photo imports, endpoints and their delivery logs through the public API (with the Tenant's key),
 * and, from the table itself (no route shows them), the AI spend and its receipts, the local
 * dead-letter queues and the stream's on-failure destination. Imported once the driver has set the
 * local stack's environment.
 */
import { QueryCommand, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { dynamo, tableName } from '../../functions/data/client.ts';
import { AiSpend } from '../../functions/data/entities/ai-spend.ts';
import { LocalQueueMessage } from '../../functions/data/entities/local-queue-message.ts';
import { listOutbox } from '../local/adapters/outbox-email.ts';
import { readSchedulerLog } from '../local/adapters/webhook-ladder.ts';
import { deadLetterQueueOf } from '../local/queue-poller.ts';
import { PARKED_PARTITION } from '../local/stream-poller.ts';
import { eventKey } from './expected.ts';
import type { Observation, ObservedDelivery, ObservedTenant, ReceivedCall, TenantLedger } from './ledger.ts';

type Page = { data: Record<string, unknown>[]; next_cursor: string | null };

async function get<T>(apiUrl: string, key: string, path: string): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      const res = await fetch(apiUrl + path, { headers: { authorization: `Bearer ${key}` } });
      if (res.ok) return (await res.json()) as T;
      if (attempt >= 5) throw new Error(`GET ${path}: ${res.status} ${await res.text()}`);
    } catch (error) {
      if (attempt >= 5) throw error;
    }
    await new Promise((r) => setTimeout(r, 500));
  }
}

/** Every item of a paged list. */
async function all(apiUrl: string, key: string, path: string): Promise<Record<string, unknown>[]> {
  const items: Record<string, unknown>[] = [];
  let cursor: string | null = null;
  do {
    const sep = path.includes('?') ? '&' : '?';
    const page: Page = await get<Page>(
      apiUrl,
      key,
      `${path}${sep}limit=200${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
    );
    items.push(...page.data);
    cursor = page.next_cursor;
  } while (cursor);
  return items;
}

/** AI receipts of every Tenant (a full read: the audit's, never a request path's). */
async function aiReceipts(): Promise<
  { tenantId: string; chargeId: string; month: string; costMicroUsd: number }[]
> {
  const found: { tenantId: string; chargeId: string; month: string; costMicroUsd: number }[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const page = await dynamo().send(
      new ScanCommand({
        TableName: tableName(),
        FilterExpression: 'contains(pk, :charge)',
        ExpressionAttributeValues: { ':charge': '#ai-charge#' },
        ConsistentRead: true,
        ...(start ? { ExclusiveStartKey: start } : {}),
      }),
    );
    for (const item of page.Items ?? []) {
      found.push({
        tenantId: String(item.tenantId),
        chargeId: String(item.chargeId),
        month: String(item.month),
        costMicroUsd: Number(item.costMicroUsd ?? 0),
      });
    }
    start = page.LastEvaluatedKey;
  } while (start);
  return found;
}

async function observeTenant(
  apiUrl: string,
  tenant: TenantLedger,
  key: string,
  since: string,
  receipts: Awaited<ReturnType<typeof aiReceipts>>,
): Promise<ObservedTenant> {
  const events = (await all(apiUrl, key, `/v1/events?since=${encodeURIComponent(since)}`)).map((e) => {
    const data = e.data as Record<string, unknown>;
    return {
      id: String(e.id),
      type: String(e.type),
      subjectId: String(data.id),
      key: eventKey(String(e.type), data),
    };
  });
  const leads = (await all(apiUrl, key, '/v1/leads?include_archived=true')).map((l) => ({
    id: String(l.id),
    email: (l.email as string | null) ?? null,
    phone: (l.phone as string | null) ?? null,
    active: l.is_active === true,
  }));
  const inquiryIds = (await all(apiUrl, key, '/v1/inquiries')).map((i) => String(i.id));
  const imports: Record<string, string> = {};
  for (const { propertyId, importId } of tenant.imports) {
    const found = await get<{ status: string }>(
      apiUrl,
      key,
      `/v1/properties/${propertyId}/images:import/${importId}`,
    );
    imports[importId] = found.status;
  }
  const endpoints: ObservedTenant['endpoints'] = {};
  for (const endpoint of tenant.endpoints) {
    const state = await get<{ enabled: boolean; disabled_reason: string | null }>(
      apiUrl,
      key,
      `/v1/webhooks/${endpoint.id}`,
    );
    const deliveries = (await all(apiUrl, key, `/v1/webhooks/${endpoint.id}/deliveries`)).map(
      (d): ObservedDelivery => ({
        id: String(d.id),
        eventId: String(d.event_id),
        status: d.status as ObservedDelivery['status'],
        attemptCount: Number(d.attempt_count),
        attemptTimes: (d.attempts as { at: string }[]).map((attempt) => Date.parse(attempt.at)),
      }),
    );
    endpoints[endpoint.id] = { enabled: state.enabled, disabledReason: state.disabled_reason, deliveries };
  }
  const enrichment: Record<string, string | null> = {};
  for (const propertyId of tenant.enriched) {
    const found = await get<{ enrichment_status: string | null }>(
      apiUrl,
      key,
      `/v1/properties/${propertyId}`,
    );
    enrichment[propertyId] = found.enrichment_status;
  }
  const emails = (await listOutbox(tenant.tenantId)).map((m) => ({
    to: m.to,
    subject: m.subject,
    leadId: /^Lead id: (\S+)$/m.exec(m.text)?.[1] ?? null,
  }));
  const own = receipts.filter((r) => r.tenantId === tenant.tenantId);
  let aiRuns = 0;
  for (const month of new Set(own.map((r) => r.month))) {
    const { data } = await AiSpend.get({ tenantId: tenant.tenantId, month }).go({ consistent: true });
    aiRuns += data?.runs ?? 0;
  }
  const scoreReceipts: Record<string, number> = {};
  for (const r of own) {
    const leadId = /^score#([^#]+)#/.exec(r.chargeId)?.[1];
    if (leadId) scoreReceipts[leadId] = (scoreReceipts[leadId] ?? 0) + 1;
  }
  return {
    events,
    leads,
    inquiryIds,
    imports,
    endpoints,
    aiRuns,
    // A run that used the model charged spend (a rule-based score writes its receipt with none).
    aiChargedReceipts: own.filter((r) => r.chargeId.startsWith('enrich#') || r.costMicroUsd > 0).length,
    scoreReceipts,
    enrichReceipts: own.filter((r) => r.chargeId.startsWith('enrich#')).length,
    enrichment,
    emails,
  };
}

/** Everything the audit compares with the ledger. */
export async function observe(options: {
  apiUrl: string;
  tenants: { ledger: TenantLedger; key: string }[];
  since: string;
  received: readonly ReceivedCall[];
  /** The soak's DATA_DIR, where the Scheduler stand-in logs. */
  dataDir: string;
}): Promise<Observation> {
  const receipts = await aiReceipts();
  const tenants: Observation['tenants'] = {};
  for (const { ledger, key } of options.tenants) {
    tenants[ledger.tenantId] = await observeTenant(options.apiUrl, ledger, key, options.since, receipts);
  }
  const deadLetters: Observation['deadLetters'] = [];
  for (const queue of ['ai', 'webhooks', 'images'] as const) {
    const dlq = deadLetterQueueOf(queue);
    const { data } = await LocalQueueMessage.query
      .byVisibility({ queue: dlq })
      .go({ pages: 'all', consistent: true });
    deadLetters.push(...data.map((m) => ({ queue: dlq, id: m.id, body: m.body })));
  }
  const parkedItems = await dynamo().send(
    new QueryCommand({
      TableName: tableName(),
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': PARKED_PARTITION },
      ConsistentRead: true,
    }),
  );
  const parked = (parkedItems.Items ?? []).map((item) => ({
    sequenceNumber: String(item.sequenceNumber),
    eventId: String(JSON.parse(String(item.record ?? '{}')).eventID ?? ''),
    reason: String(item.condition),
  }));
  const schedules = readSchedulerLog(options.dataDir).map(({ at, kind, schedule }) => ({
    at,
    kind,
    schedule,
  }));
  return { tenants, received: [...options.received], deadLetters, parked, schedules };
}
