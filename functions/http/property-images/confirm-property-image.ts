import { defineOperation } from '../../api/operation.ts';
import { PropertyPath } from '../../contract/properties.ts';
import { ImageConfirmIn, ImageOut, toImageOut } from '../../contract/property-images.ts';
import { ErrorOut, ValidationErrorOut } from '../../contract/shared.ts';
import { confirmUpload } from '../../services/listing-images.ts';

export const operation = defineOperation(
  'confirmPropertyImage',
  {
    params: PropertyPath,
    body: ImageConfirmIn,
    responses: {
      201: { description: 'The uploaded photo, now in the gallery', schema: ImageOut },
      200: { description: 'This upload was confirmed before: the same photo', schema: ImageOut },
      404: { description: 'No listing with this id in this tenant', schema: ErrorOut },
      422: {
        description:
          'object_key not an upload of this listing, nothing uploaded under it, another size than minted, not a JPEG, PNG, WebP, AVIF or GIF by its content (the file is deleted), the file PUT again while it was being confirmed (upload_changed: confirm again), or the gallery already holds 100 photos',
        schema: ValidationErrorOut,
      },
    },
  },
  async ({ params, body, caller }) => {
    const { image, created } = await confirmUpload(
      caller.tenant.tenantId,
      params.property_id,
      caller.apiKey.name,
      body,
    );
    return { status: created ? 201 : 200, body: toImageOut(image) };
  },
);

export const handler = operation.handler;
