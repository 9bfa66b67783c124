import { BatchGetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { createConversions } from 'electrodb';
import { dynamo, tableName } from './client.ts';
import { SiteRateWindow } from './entities/site-rate-window.ts';
import { countersOfRefusal, isConditionalFailure, isThrottled } from './errors.ts';

type WindowComposite = { tenantId: string; windowStart: number; bucket: string };
let windowKeys: ((composite: WindowComposite) => Record<string, string>) | undefined;

/**
 * The window item's key, by ElectroDB's key conversions (the entity's own template) built once,
 * instead of a `get().params()` query chain per counter: about 110 µs of CPU each on the bench
 * machine against 5, and a site request counts two.
 */
function windowKey(composite: WindowComposite): Record<string, string> {
  if (!windowKeys) {
    const conversions = createConversions(SiteRateWindow);
    windowKeys = (c) => conversions.fromComposite.toKeys<Record<string, string>>(c);
  }
  return windowKeys(composite);
}

export interface SiteWindowCounts {
  siteCount: number;
  visitorCount: number;
  /** The visitor's network (an IPv6 /48): undefined for a visitor without one (IPv4). */
  networkCount: number | undefined;
  /**
   * False when a budget was spent: the request counted on none that comes after it in order
   * (visitor, network, site).
   */
  admitted: boolean;
}

/** A counter of one window item, and the quota it may not pass (the update's condition). */
interface Counter {
  name: string;
  quota: number;
}

/**
 * Adds one to each counter of the window item when every one of them is under its quota, else
 * nothing (a refused request spends no budget). Answers the counters after the update, or, refused,
 * as they are plus this request (so a spent budget reads as over its quota): one round trip either way.
 */
async function add(
  tenantId: string,
  windowStart: number,
  windowSeconds: number,
  bucket: string,
  counters: Counter[],
): Promise<{ admitted: boolean; counts: Record<string, number> }> {
  const Key = windowKey({ tenantId, windowStart, bucket });
  const names = Object.fromEntries(counters.map((c, i) => [`#c${i}`, c.name]));
  const quotas = Object.fromEntries(counters.map((c, i) => [`:q${i}`, c.quota]));
  try {
    const { Attributes = {} } = await dynamo().send(
      new UpdateCommand({
        TableName: tableName(),
        Key,
        UpdateExpression: `ADD ${counters.map((_, i) => `#c${i} :one`).join(', ')} SET #ttl = if_not_exists(#ttl, :ttl), #tenantId = :tenantId, #windowStart = :windowStart, #bucket = :bucket, #e = :e, #v = :v`,
        ConditionExpression: counters
          .map((_, i) => `(attribute_not_exists(#c${i}) OR #c${i} < :q${i})`)
          .join(' AND '),
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        ExpressionAttributeNames: {
          ...names,
          '#ttl': 'ttl',
          '#tenantId': 'tenantId',
          '#windowStart': 'windowStart',
          '#bucket': 'bucket',
          '#e': '__edb_e__',
          '#v': '__edb_v__',
        },
        ExpressionAttributeValues: {
          ...quotas,
          ':one': 1,
          ':ttl': windowStart + windowSeconds * 2,
          ':tenantId': tenantId,
          ':windowStart': windowStart,
          ':bucket': bucket,
          ':e': 'siteRateWindow',
          ':v': '1',
        },
        ReturnValues: 'UPDATED_NEW',
      }),
    );
    return {
      admitted: true,
      counts: Object.fromEntries(counters.map((c) => [c.name, Number(Attributes[c.name] ?? 1)])),
    };
  } catch (error) {
    // Throttled even after the SDK's retries: more requests on this window item than its partition
    // can count, a flood. Answered as the budget spent (429, retry once the window resets), never a
    // 500 for the whole site.
    if (isThrottled(error)) {
      return { admitted: false, counts: Object.fromEntries(counters.map((c) => [c.name, c.quota + 1])) };
    }
    if (!isConditionalFailure(error)) throw error;
    const current = countersOfRefusal(error);
    return {
      admitted: false,
      counts: Object.fromEntries(counters.map((c) => [c.name, (current[c.name] ?? 0) + 1])),
    };
  }
}

/** Gives back one count of a counter that a request refused elsewhere had spent. */
async function giveBack(
  tenantId: string,
  windowStart: number,
  bucket: string,
  counter: string,
): Promise<void> {
  await dynamo()
    .send(
      new UpdateCommand({
        TableName: tableName(),
        Key: windowKey({ tenantId, windowStart, bucket }),
        UpdateExpression: 'ADD #c :minusOne',
        ConditionExpression: '#c > :zero',
        ExpressionAttributeNames: { '#c': counter },
        ExpressionAttributeValues: { ':minusOne': -1, ':zero': 0 },
      }),
    )
    .catch((error: unknown) => {
      // A give-back lost to throttling costs the budget one count for the rest of the window: no 500.
      if (!isConditionalFailure(error) && !isThrottled(error)) throw error;
    });
}

/**
 * Refusals of this window seen by this container, by visitor and quotas: a budget once spent stays
 * spent until its window ends (only admitted requests count), so later requests of the window are
 * answered from here without a write. A flood on one Tenant then costs its window items a write per
 * container, not one per request (each refused conditional update is still a billed write, and on
 * the partition's 1,000 WCU). Holds the current window only.
 */
const refusals: { windowStart: number; counts: Map<string, number> } = { windowStart: 0, counts: new Map() };

/** The spent counters of the window, each with the count it was refused at. */
function refusalsOf(windowStart: number): Map<string, number> {
  if (refusals.windowStart !== windowStart) {
    refusals.windowStart = windowStart;
    refusals.counts = new Map();
  }
  return refusals.counts;
}

/** A site request as its budgets see it: who sent it, in which window, against which quotas. */
export interface SiteRequest {
  tenantId: string;
  visitor: string;
  /** The visitor's network bucket (an IPv6 /48), budgeted when given. */
  network?: string | undefined;
  windowStart: number;
  windowSeconds: number;
  quotas: { visitor: number; network: number; site: number };
}

/** The refusal memory's entries of a request's budgets. */
function refusalKeys(input: SiteRequest) {
  const { tenantId, network, quotas } = input;
  return {
    site: `${tenantId}|site|${quotas.site}`,
    visitor: `${tenantId}|visitor#${input.visitor}|${quotas.visitor}`,
    network: network ? `${tenantId}|network#${network}|${quotas.network}` : undefined,
  };
}

/** The request's counts when this container already saw one of its budgets spent this window. */
function spentFromMemory(input: SiteRequest): SiteWindowCounts | undefined {
  const known = refusalsOf(input.windowStart);
  const keys = refusalKeys(input);
  const siteSpent = known.get(keys.site);
  const visitorSpent = known.get(keys.visitor);
  const networkSpent = keys.network ? known.get(keys.network) : undefined;
  if (siteSpent === undefined && visitorSpent === undefined && networkSpent === undefined) return undefined;
  // The counters not spent were not counted: reported unused (a spent one is the tightest budget,
  // the one the headers describe).
  return {
    siteCount: siteSpent ?? 0,
    visitorCount: visitorSpent ?? 0,
    networkCount: input.network ? (networkSpent ?? 0) : undefined,
    admitted: false,
  };
}

/**
 * Counts one site request against the visitor's budget, its network's (an IPv6 visitor's /48) and
 * the Tenant's site budget: conditional UpdateItems sent together, one round trip of waiting, each
 * counting only under its quota. The budgets are judged in that order, and a budget is spent only
 * by requests every budget before it admits: when the visitor's own budget refuses the request,
 * the network and site counts it took meanwhile are given back, and when the network's refuses it,
 * the site count (a write on the refused request's path only). So one visitor cannot lock its
 * network's neighbours out, nor one network (a household stepping through the /64s of its /56) the
 * site.
 */
export async function countSiteRequest(input: SiteRequest): Promise<SiteWindowCounts> {
  const { tenantId, windowStart, windowSeconds, network } = input;
  const fromMemory = spentFromMemory(input);
  if (fromMemory) return fromMemory;
  const known = refusalsOf(windowStart);
  const { site: siteRefusal, visitor: visitorRefusal, network: networkRefusal } = refusalKeys(input);
  const networkBucket = network ? `network#${network}` : undefined;
  const [site, visitor, net] = await Promise.all([
    add(tenantId, windowStart, windowSeconds, 'site', [{ name: 'count', quota: input.quotas.site }]),
    add(tenantId, windowStart, windowSeconds, `visitor#${input.visitor}`, [
      { name: 'count', quota: input.quotas.visitor },
    ]),
    networkBucket
      ? add(tenantId, windowStart, windowSeconds, networkBucket, [
          { name: 'count', quota: input.quotas.network },
        ])
      : undefined,
  ]);
  const networkAdmitted = net?.admitted ?? true;
  await Promise.all([
    site.admitted && !(visitor.admitted && networkAdmitted)
      ? giveBack(tenantId, windowStart, 'site', 'count')
      : undefined,
    networkBucket && net?.admitted && !visitor.admitted
      ? giveBack(tenantId, windowStart, networkBucket, 'count')
      : undefined,
  ]);
  const counts = {
    siteCount: site.counts.count ?? 1,
    visitorCount: visitor.counts.count ?? 1,
    networkCount: net ? (net.counts.count ?? 1) : undefined,
    admitted: site.admitted && visitor.admitted && networkAdmitted,
  };
  if (!site.admitted) known.set(siteRefusal, counts.siteCount);
  if (!visitor.admitted) known.set(visitorRefusal, counts.visitorCount);
  if (net && !net.admitted && networkRefusal) known.set(networkRefusal, counts.networkCount ?? 0);
  return counts;
}

/**
 * Reads a site request's budgets without spending them, for a request whose own write is its limit
 * (the view count: one conditional update per view, a repeat refused by it; counting it too would
 * cost two writes more than the view). A budget this container saw spent refuses it from memory;
 * otherwise one eventually consistent BatchGetItem reads the window items (half a read unit each,
 * found or not). Admitted while every budget has room; each reads as its count, and a spent one as
 * its count plus this request, as a refused count reads (so the verdict carries Retry-After). A read
 * throttled past the SDK's retries is a flood, answered as the budgets spent, as a count's is.
 */
export async function peekSiteRequest(input: SiteRequest): Promise<SiteWindowCounts> {
  const fromMemory = spentFromMemory(input);
  if (fromMemory) return fromMemory;
  const { tenantId, windowStart, network, quotas } = input;
  const buckets = ['site', `visitor#${input.visitor}`, ...(network ? [`network#${network}`] : [])];
  const spent: SiteWindowCounts = {
    siteCount: quotas.site + 1,
    visitorCount: quotas.visitor + 1,
    networkCount: network ? quotas.network + 1 : undefined,
    admitted: false,
  };
  let items: Record<string, unknown>[];
  try {
    const table = tableName();
    const { Responses, UnprocessedKeys } = await dynamo().send(
      new BatchGetCommand({
        RequestItems: {
          [table]: {
            Keys: buckets.map((bucket) => windowKey({ tenantId, windowStart, bucket })),
            ProjectionExpression: '#bucket, #count',
            ExpressionAttributeNames: { '#bucket': 'bucket', '#count': 'count' },
          },
        },
      }),
    );
    if ((UnprocessedKeys?.[table]?.Keys?.length ?? 0) > 0) return spent;
    items = Responses?.[table] ?? [];
  } catch (error) {
    if (isThrottled(error)) return spent;
    throw error;
  }
  const stored = (bucket: string) => Number(items.find((i) => i.bucket === bucket)?.count ?? 0);
  const site = stored('site');
  const visitor = stored(`visitor#${input.visitor}`);
  const net = network ? stored(`network#${network}`) : 0;
  const read = (count: number, quota: number) => (count < quota ? count : count + 1);
  const counts = {
    siteCount: read(site, quotas.site),
    visitorCount: read(visitor, quotas.visitor),
    networkCount: network ? read(net, quotas.network) : undefined,
    admitted: site < quotas.site && visitor < quotas.visitor && (!network || net < quotas.network),
  };
  // Spent: the rest of the window is refused from memory, as after a refused count.
  const known = refusalsOf(windowStart);
  const keys = refusalKeys(input);
  if (site >= quotas.site) known.set(keys.site, counts.siteCount);
  if (visitor >= quotas.visitor) known.set(keys.visitor, counts.visitorCount);
  if (keys.network && net >= quotas.network) known.set(keys.network, counts.networkCount ?? 0);
  return counts;
}

/** The inquiry counter of a publishable key on a visitor's window item. */
const inquiryCounter = (keyId: string) => `inquiry_${keyId}`;

/**
 * Counts one Inquiry of the key from the visitor (`inquiry-minute`), only under its quota. Called
 * once the request's Turnstile token is being checked; a refused Inquiry gives its count back
 * ({@link giveBackSiteInquiry}), so only admitted Inquiries spend the budget.
 */
export async function countSiteInquiry(input: {
  tenantId: string;
  visitor: string;
  keyId: string;
  windowStart: number;
  windowSeconds: number;
  quota: number;
}): Promise<{ admitted: boolean; inquiryCount: number }> {
  const name = inquiryCounter(input.keyId);
  const { admitted, counts } = await add(
    input.tenantId,
    input.windowStart,
    input.windowSeconds,
    `visitor#${input.visitor}`,
    [{ name, quota: input.quota }],
  );
  return { admitted, inquiryCount: counts[name] ?? 1 };
}

export function giveBackSiteInquiry(input: {
  tenantId: string;
  visitor: string;
  keyId: string;
  windowStart: number;
}): Promise<void> {
  return giveBack(input.tenantId, input.windowStart, `visitor#${input.visitor}`, inquiryCounter(input.keyId));
}
