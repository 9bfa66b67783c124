import { createHash } from 'node:crypto';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { createConversions } from 'electrodb';
import { dynamo, tableName } from './client.ts';
import { ListingViews } from './entities/listing-views.ts';
import { isConditionalFailure } from './errors.ts';

/**
 * The marks one slot of a listing's counter item may hold. The item is billed by its size (1 write
 * unit per KB, the larger of before and after, a refused write too): about 220 bytes of keys and
 * counter plus two slots of at most 60 marks (6 bytes each) stays under 1 KB.
 */
export const VIEW_MARKS_PER_SLOT = 60;

/**
 * A visitor's mark for one window: 32 bits of SHA-256 over the window and the visitor, stored as a
 * number (6 bytes) instead of the address itself. Two visitors of one listing whose marks collide in
 * one minute would count once: about one chance in 2.4 million with 60 visitors that minute, none
 * with the one or two a listing usually has.
 */
export function viewMark(visitor: string, windowStart: number): number {
  return createHash('sha256').update(`${windowStart}\n${visitor}`).digest().readUInt32BE(0);
}

let counterKeys: ((c: { tenantId: string; propertyId: string }) => Record<string, string>) | undefined;

function counterKey(tenantId: string, propertyId: string): Record<string, string> {
  if (!counterKeys) {
    const conversions = createConversions(ListingViews);
    counterKeys = (c) => conversions.fromComposite.toKeys<Record<string, string>>(c);
  }
  return counterKeys({ tenantId, propertyId });
}

/**
 * Marks this container made or was refused this window: a repeat it sees again is answered without
 * a write (the table's condition would refuse it anyway, for a write unit). Cleared each window and
 * when it grows past its bound, so it only ever saves writes, never decides a count.
 */
const seen = { windowStart: 0, marks: new Set<string>() };
const SEEN_LIMIT = 50_000;

/** Forgets the marks this container saw, as a fresh container would (tests). */
export function forgetSeenViews(): void {
  seen.windowStart = 0;
  seen.marks = new Set();
}

function seenThisWindow(windowStart: number): Set<string> {
  if (seen.windowStart !== windowStart || seen.marks.size >= SEEN_LIMIT) {
    seen.windowStart = windowStart;
    seen.marks = new Set();
  }
  return seen.marks;
}

/** The marks of a slot on the item a refused update returned (wire form: `{NS: [...]}`). */
function marksOfRefusal(error: unknown, slot: string): number[] | undefined {
  let current: unknown = error;
  for (let depth = 0; current && depth < 5; depth++) {
    const item = (current as { Item?: Record<string, { NS?: string[] }> }).Item;
    if (item) return (item[slot]?.NS ?? []).map(Number);
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

/**
 * Counts a view unless this visitor already viewed the listing in this window, in one conditional
 * UpdateItem of the listing's counter item that both marks and counts: the window's marks live on
 * the counter, in one of two slots by the window's parity. An update adds the visitor's mark to the
 * window's slot and removes the other slot (the previous window's marks), under the condition that
 * the slot does not hold the mark yet. So a view costs one write unit, counted or refused, and a
 * repeat in a container that already saw it none. Marks carry their window, so a mark left in a
 * slot from two windows before never matches; a slot that reaches {@link VIEW_MARKS_PER_SLOT}
 * (more distinct visitors of one listing in a minute, or old marks piling up) is started afresh
 * by a second write, once in that many views. Returns whether the view counted.
 */
export async function countListingView(input: {
  tenantId: string;
  propertyId: string;
  visitor: string;
  windowStart: number;
  windowSeconds: number;
}): Promise<boolean> {
  const { tenantId, propertyId, visitor, windowStart, windowSeconds } = input;
  const mark = viewMark(visitor, windowStart);
  const known = seenThisWindow(windowStart);
  const seenKey = `${tenantId}#${propertyId}#${mark}`;
  if (known.has(seenKey)) return false;
  const parity = Math.floor(windowStart / windowSeconds) % 2;
  const names = {
    '#count': 'count',
    '#slot': `seen${parity}`,
    '#other': `seen${1 - parity}`,
    '#tenantId': 'tenantId',
    '#propertyId': 'propertyId',
    '#e': '__edb_e__',
    '#v': '__edb_v__',
  };
  const values = {
    ':one': 1,
    ':marks': new Set([mark]),
    ':mark': mark,
    ':tenantId': tenantId,
    ':propertyId': propertyId,
    ':e': 'listingViews',
    ':v': '1',
  };
  const identity = 'SET #tenantId = :tenantId, #propertyId = :propertyId, #e = :e, #v = :v';
  const update = (expression: string, condition: string, extra: Record<string, unknown> = {}) =>
    dynamo().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: counterKey(tenantId, propertyId),
        UpdateExpression: `${expression} REMOVE #other`,
        ConditionExpression: condition,
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: { ...values, ...extra },
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      }),
    );
  try {
    await update(
      `ADD #count :one, #slot :marks ${identity}`,
      'NOT contains(#slot, :mark) AND (attribute_not_exists(#slot) OR size(#slot) < :cap)',
      { ':cap': VIEW_MARKS_PER_SLOT },
    );
  } catch (error) {
    if (!isConditionalFailure(error)) throw error;
    const marks = marksOfRefusal(error, names['#slot']);
    if (!marks || marks.includes(mark)) {
      known.add(seenKey);
      return false;
    }
    // The slot is full: start it afresh with this mark (a view already marked is still refused).
    try {
      await update(`ADD #count :one ${identity}, #slot = :marks`, 'NOT contains(#slot, :mark)');
    } catch (again) {
      if (!isConditionalFailure(again)) throw again;
      known.add(seenKey);
      return false;
    }
  }
  known.add(seenKey);
  return true;
}

/** The views counted for a listing (0 when none). */
export async function listingViewCount(tenantId: string, propertyId: string): Promise<number> {
  const { data } = await ListingViews.get({ tenantId, propertyId }).go();
  return data?.count ?? 0;
}
