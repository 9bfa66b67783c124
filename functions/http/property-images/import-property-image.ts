import { PropertyPath } from '../../contract/properties.ts';
import { ImageImportIn, ImageImportOut, toImageImportOut } from '../../contract/property-images.ts';
import { ErrorOut, ValidationErrorOut } from '../../contract/shared.ts';
import { galleryOf } from '../../data/listing-images.ts';
import { requireListing } from '../../data/listings.ts';
import { defineOperation } from '../../pipeline/operation.ts';
import { requestImport } from '../../services/image-imports.ts';

export const operation = defineOperation(
  'importPropertyImage',
  {
    params: PropertyPath,
    body: ImageImportIn,
    responses: {
      202: {
        description:
          'The import, pending: the file is fetched in the background. A repeated URL is fetched again ' +
          '(same import id) when its import failed, or when it was ready but its photo has since been ' +
          'deleted from the gallery',
        schema: ImageImportOut,
      },
      200: {
        description:
          'This URL was imported into this listing before and is pending, or ready with its photo still ' +
          'in the gallery: that import',
        schema: ImageImportOut,
      },
      404: { description: 'No listing with this id in this tenant', schema: ErrorOut },
      422: {
        description:
          'Not an https URL on a public host (or with userinfo); the gallery already holds 100 photos',
        schema: ValidationErrorOut,
      },
    },
  },
  async ({ params, body, caller }) => {
    const tenantId = caller.tenant.tenantId;
    const { record, created } = await requestImport(tenantId, params.property_id, body);
    const gallery =
      record.status === 'ready' ? galleryOf(await requireListing(tenantId, params.property_id)) : [];
    return { status: created ? 202 : 200, body: toImageImportOut(record, gallery) };
  },
);

export const handler = operation.handler;
