import type { RouteDefinition } from '../../pipeline/route.ts';

/** Rows of the route table (functions/routes.ts) for this resource. */
export const inquiryRoutes = [
  {
    operationId: 'listInquiries',
    method: 'GET',
    path: '/v1/inquiries',
    scope: 'leads:read',
    entry: 'inquiries/list-inquiries.ts',
    summary: 'List Inquiries, least recently updated first (filters lead_id, property_id)',
    tag: 'Leads',
  },
  {
    operationId: 'getInquiry',
    method: 'GET',
    path: '/v1/inquiries/{inquiry_id}',
    scope: 'leads:read',
    entry: 'inquiries/get-inquiry.ts',
    summary: 'Read one Inquiry',
    tag: 'Leads',
  },
] as const satisfies readonly RouteDefinition[];
