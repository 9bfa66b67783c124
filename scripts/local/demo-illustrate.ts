import { importPhoto } from '../../functions/services/photo-processing.ts';
import { type SampleListing, sampleSeaside } from './demo-catalogue.ts';
import { demoPhoto, type PhotoView } from './demo-photos.ts';

/**
 * Gives each listing of the demo catalogue its photos, drawn on this machine (scripts/local/demo-photos.ts)
 * and stored through the same service as an imported photo (its renditions made, the original kept
 * privately): the façade as the cover, then the garden side, and the view for featured listings. Run in the background after the first start, since
 * drawing takes a while on a busy machine; the site shows each gallery as it fills.
 */
export async function illustrateCatalogue(
  tenantId: string,
  listings: { id: string; sample: SampleListing }[],
): Promise<number> {
  let photos = 0;
  for (const [index, { id, sample }] of listings.entries()) {
    const views: PhotoView[] = sample.featured ? ['facade', 'view', 'garden'] : ['facade', 'garden'];
    for (const [order, view] of views.entries()) {
      const body = demoPhoto({ listing: index, view, seaside: sampleSeaside(sample), floors: sample.floors });
      const added = await importPhoto(
        tenantId,
        id,
        { importId: `demo-photo-${sample.ref}-${view}`, attempt: 1, body, contentType: 'image/jpeg' },
        { isPrimary: order === 0, sortOrder: order },
      );
      if (!added.ok) throw new Error(`demo photo ${sample.ref} ${view}: ${added.detail}`);
      photos++;
    }
  }
  return photos;
}
