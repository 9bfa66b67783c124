import { InquiryOut, InquiryPath, toInquiryOut } from '../../contract/inquiries.ts';
import { ErrorOut, ValidationErrorOut } from '../../contract/shared.ts';
import { defineOperation } from '../../pipeline/operation.ts';
import { readInquiry } from '../../services/inquiries.ts';

export const operation = defineOperation(
  'getInquiry',
  {
    params: InquiryPath,
    responses: {
      200: { description: 'The Inquiry', schema: InquiryOut },
      404: { description: 'No Inquiry with this id in this tenant', schema: ErrorOut },
      422: { description: 'inquiry_id is not a UUID', schema: ValidationErrorOut },
    },
  },
  async ({ params, caller }) => ({
    status: 200,
    body: toInquiryOut(await readInquiry(caller.tenant.tenantId, params.inquiry_id)),
  }),
);

export const handler = operation.handler;
