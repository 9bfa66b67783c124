import { InquiryListQuery, InquiryOut, toInquiryOut } from '../../contract/inquiries.ts';
import { pageOf, ValidationErrorOut } from '../../contract/shared.ts';
import { defineOperation } from '../../pipeline/operation.ts';
import { listInquiries } from '../../services/inquiries.ts';

export const operation = defineOperation(
  'listInquiries',
  {
    query: InquiryListQuery,
    responses: {
      200: { description: 'A page of Inquiries, least recently updated first', schema: pageOf(InquiryOut) },
      422: {
        description: 'Invalid limit, cursor, updated_since, lead_id or property_id',
        schema: ValidationErrorOut,
      },
    },
  },
  async ({ query, caller }) => ({
    status: 200,
    body: await listInquiries(caller.tenant.tenantId, query, toInquiryOut),
  }),
);

export const handler = operation.handler;
