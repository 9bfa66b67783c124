import { PropertyPath } from '../../contract/properties.ts';
import { ImageConfirmIn, ImageOut, toImageOut } from '../../contract/property-images.ts';
import { ErrorOut, ValidationErrorOut } from '../../contract/shared.ts';
import { defineOperation } from '../../pipeline/operation.ts';
import { confirmUpload } from '../../services/listing-images.ts';

export const operation = defineOperation(
  'confirmPropertyImage',
  {
    params: PropertyPath,
    body: ImageConfirmIn,
    responses: {
      201: {
        description:
          'The upload is checked and kept, and the photo is in the gallery at once: status processing while its renditions are made off the request path (url null, renditions empty, not listed by the site API), then ready in place, same id, its place and cover flag as PATCHed meanwhile. PATCH and DELETE take it by its id at once. A file that cannot be decoded leaves the gallery; GET …/images:import/{image_id} then says why (failed, failure_reason)',
        schema: ImageOut,
      },
      200: {
        description: 'This upload was confirmed before: the same gallery image, as it is now',
        schema: ImageOut,
      },
      404: { description: 'No listing with this id in this tenant', schema: ErrorOut },
      422: {
        description:
          'object_key not an upload of this listing, nothing uploaded under it (or its photo deleted since: upload_missing), another size than minted, not a JPEG, PNG, WebP, AVIF or GIF by its content, more than 100 megapixels (too_many_pixels) (the file is deleted), the file PUT again while it was being confirmed (upload_changed: confirm again), the gallery already holds 100 photos, or, confirmed again, its file could not be decoded (unreadable_image)',
        schema: ValidationErrorOut,
      },
    },
  },
  async ({ params, body, caller }) => {
    const { image, created } = await confirmUpload(caller.tenant.tenantId, params.property_id, body);
    return { status: created ? 201 : 200, body: toImageOut(image) };
  },
);

export const handler = operation.handler;
