import { ImageImportOut, ImportPath, toImageImportOut } from '../../contract/property-images.ts';
import { ErrorOut } from '../../contract/shared.ts';
import { galleryOf } from '../../data/listing-images.ts';
import { requireListing } from '../../data/listings.ts';
import { defineOperation } from '../../pipeline/operation.ts';
import { readImport } from '../../services/image-imports.ts';

export const operation = defineOperation(
  'getPropertyImageImport',
  {
    params: ImportPath,
    responses: {
      200: {
        description:
          'The import: pending, ready (with its image; null when that photo has since been deleted from ' +
          'the gallery, and importing the URL again fetches it anew) or failed (with its reason)',
        schema: ImageImportOut,
      },
      404: {
        description: 'No listing with this id in this tenant, or no such import on it',
        schema: ErrorOut,
      },
    },
  },
  async ({ params, caller }) => {
    const tenantId = caller.tenant.tenantId;
    const record = await readImport(tenantId, params.property_id, params.import_id);
    const gallery =
      record.status === 'ready' ? galleryOf(await requireListing(tenantId, params.property_id)) : [];
    return { status: 200, body: toImageImportOut(record, gallery) };
  },
);

export const handler = operation.handler;
