import { ImageOut, ImagePatchIn, ImagePath, toImageOut } from '../../contract/property-images.ts';
import { ErrorOut, ValidationErrorOut } from '../../contract/shared.ts';
import { defineOperation } from '../../pipeline/operation.ts';
import { editImage } from '../../services/listing-images.ts';

export const operation = defineOperation(
  'updatePropertyImage',
  {
    params: ImagePath,
    body: ImagePatchIn,
    responses: {
      200: { description: 'The photo, with its place and cover flag after the change', schema: ImageOut },
      404: {
        description: 'No listing with this id in this tenant, or no such photo on it',
        schema: ErrorOut,
      },
      422: {
        description: 'Validation failure; is_primary false on the cover (move the cover instead)',
        schema: ValidationErrorOut,
      },
    },
  },
  async ({ params, body, caller }) => {
    const image = await editImage(
      caller.tenant.tenantId,
      params.property_id,
      params.image_id,
      caller.apiKey.name,
      body,
    );
    return { status: 200, body: toImageOut(image) };
  },
);

export const handler = operation.handler;
