import { ListingViewMark } from './entities/listing-view-mark.ts';
import { ListingViews } from './entities/listing-views.ts';
import { isConditionalFailure } from './errors.ts';

/**
 * Counts a view unless this visitor already viewed the listing in this minute: the mark is created
 * only if absent, then the counter is incremented. Returns whether the view counted.
 */
export async function countListingView(input: {
  tenantId: string;
  propertyId: string;
  visitor: string;
  windowStart: number;
  windowSeconds: number;
}): Promise<boolean> {
  const { tenantId, propertyId, visitor, windowStart, windowSeconds } = input;
  try {
    await ListingViewMark.create({
      tenantId,
      propertyId,
      visitor,
      windowStart,
      ttl: windowStart + windowSeconds * 2,
    }).go({
      response: 'none',
    });
  } catch (error) {
    if (isConditionalFailure(error)) return false;
    throw error;
  }
  await ListingViews.upsert({ tenantId, propertyId }).add({ count: 1 }).go({ response: 'none' });
  return true;
}

/** The views counted for a listing (0 when none). */
export async function listingViewCount(tenantId: string, propertyId: string): Promise<number> {
  const { data } = await ListingViews.get({ tenantId, propertyId }).go();
  return data?.count ?? 0;
}
