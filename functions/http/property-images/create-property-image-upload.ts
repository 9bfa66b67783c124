import { PropertyPath } from '../../contract/properties.ts';
import { ImageUploadIn, ImageUploadOut } from '../../contract/property-images.ts';
import { ErrorOut, ValidationErrorOut } from '../../contract/shared.ts';
import { defineOperation } from '../../pipeline/operation.ts';
import { mintUpload } from '../../services/listing-images.ts';

export const operation = defineOperation(
  'createPropertyImageUpload',
  {
    params: PropertyPath,
    body: ImageUploadIn,
    responses: {
      201: {
        description:
          'A presigned PUT: send the file to url with exactly these headers within 15 minutes, then confirm object_key',
        schema: ImageUploadOut,
      },
      404: { description: 'No listing with this id in this tenant', schema: ErrorOut },
      422: {
        description: 'An unsupported content_type, or size_bytes not 1 byte to 20 MB',
        schema: ValidationErrorOut,
      },
    },
  },
  async ({ params, body, caller }) => {
    const minted = await mintUpload(caller.tenant.tenantId, params.property_id, body);
    return {
      status: 201,
      body: {
        url: minted.url,
        method: minted.method,
        headers: minted.headers,
        object_key: minted.objectKey,
        expires_at: minted.expiresAt,
      },
    };
  },
);

export const handler = operation.handler;
