import { ImagePath } from '../../contract/property-images.ts';
import { ErrorOut } from '../../contract/shared.ts';
import { defineOperation } from '../../pipeline/operation.ts';
import { deleteImage } from '../../services/listing-images.ts';

export const operation = defineOperation(
  'deletePropertyImage',
  {
    params: ImagePath,
    responses: {
      204: {
        description:
          'The photo left the gallery and its files were deleted (the CDN drops them within minutes); the next photo is the cover',
      },
      404: {
        description: 'No listing with this id in this tenant, or no such photo on it',
        schema: ErrorOut,
      },
    },
  },
  async ({ params, caller }) => {
    await deleteImage(caller.tenant.tenantId, params.property_id, params.image_id, caller.apiKey.name);
    return { status: 204 };
  },
);

export const handler = operation.handler;
