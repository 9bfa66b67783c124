import { addImportedImage } from '../../functions/services/listing-images.ts';
import { type SampleListing, sampleSeaside } from './demo-catalogue.ts';
import { demoPhoto, PHOTO_HEIGHT, PHOTO_WIDTH, type PhotoView } from './demo-photos.ts';

/**
 * Gives each listing of the demo catalogue its photos, drawn on this machine (scripts/local/demo-photos.ts)
 * and stored through the same gallery service as an imported photo: the façade as the cover, then the
 * garden side, and the view for featured listings. Run in the background after the first start, since
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
      await addImportedImage(
        tenantId,
        id,
        `demo-photo-${sample.ref}-${view}`,
        { body, contentType: 'image/jpeg', width: PHOTO_WIDTH, height: PHOTO_HEIGHT },
        { isPrimary: order === 0, sortOrder: order },
      );
      photos++;
    }
  }
  return photos;
}
