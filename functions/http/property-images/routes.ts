import type { RouteDefinition } from '../../pipeline/route.ts';

/** Rows of the route table (functions/routes.ts) for a listing's photos (docs/photos.md). */
export const propertyImageRoutes = [
  {
    operationId: 'importPropertyImage',
    method: 'POST',
    path: '/v1/properties/{property_id}/images:import',
    scope: 'properties:write',
    entry: 'property-images/import-property-image.ts',
    summary:
      'Import a photo from an https URL in the background (202 pending; 200 with the existing import for a repeated URL)',
    tag: 'Listing photos',
    uses: ['imageQueue'],
  },
  {
    operationId: 'getPropertyImageImport',
    method: 'GET',
    path: '/v1/properties/{property_id}/images:import/{import_id}',
    scope: 'properties:write',
    entry: 'property-images/get-property-image-import.ts',
    summary: 'Read a photo import: pending, ready (with its image) or failed (with its reason)',
    tag: 'Listing photos',
  },
  {
    operationId: 'createPropertyImageUpload',
    method: 'POST',
    path: '/v1/properties/{property_id}/images/uploads',
    scope: 'properties:write',
    entry: 'property-images/create-property-image-upload.ts',
    summary: 'Mint a presigned PUT for one photo file (valid 15 minutes; type and size are signed)',
    tag: 'Listing photos',
    uses: ['photoUpload'],
  },
  {
    operationId: 'confirmPropertyImage',
    method: 'POST',
    path: '/v1/properties/{property_id}/images',
    scope: 'properties:write',
    entry: 'property-images/confirm-property-image.ts',
    summary:
      'Confirm an uploaded photo: checked and kept, its renditions made in the background (202 pending, as an import; 200 when that upload was already confirmed)',
    tag: 'Listing photos',
    uses: ['photoConfirm', 'imageQueue'],
  },
  {
    operationId: 'updatePropertyImage',
    method: 'PATCH',
    path: '/v1/properties/{property_id}/images/{image_id}',
    scope: 'properties:write',
    entry: 'property-images/update-property-image.ts',
    summary: 'Reorder a photo (sort_order) or make it the cover (is_primary true)',
    tag: 'Listing photos',
  },
  {
    operationId: 'deletePropertyImage',
    method: 'DELETE',
    path: '/v1/properties/{property_id}/images/{image_id}',
    scope: 'properties:write',
    entry: 'property-images/delete-property-image.ts',
    summary:
      'Remove a photo from the gallery and delete its files (the next photo becomes the cover; the CDN drops them)',
    tag: 'Listing photos',
    uses: ['photoDelete', 'imageQueue'],
  },
] as const satisfies readonly RouteDefinition[];
