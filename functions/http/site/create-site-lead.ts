import { ErrorOut, ValidationErrorOut } from '../../contract/shared.ts';
import { SiteLeadCreate, SiteLeadOut, SiteQuery } from '../../contract/site.ts';
import { defineOperation } from '../../pipeline/operation.ts';
import { takeSiteInquiry } from '../../services/site-writes.ts';

export const operation = defineOperation(
  'createSiteLead',
  {
    query: SiteQuery,
    body: SiteLeadCreate,
    responses: {
      201: {
        description:
          'The Inquiry was taken in like one from the website: Lead matched or created (source widget), Lead Owner, scoring, email',
        schema: SiteLeadOut,
      },
      403: { description: 'No valid Turnstile token: nothing was written', schema: ErrorOut },
      422: {
        description:
          'A bad field (email, a message over 5,000 characters), both property_id and agent_id, or an unknown listing or Agent',
        schema: ValidationErrorOut,
      },
    },
  },
  async ({ body, caller, site }) => {
    const { inquiryId } = await takeSiteInquiry({
      tenant: caller.tenant,
      body,
      visitorIp: site?.ip,
      referer: site?.referer,
      origins: site?.origins ?? [],
    });
    return { status: 201, body: { id: inquiryId } };
  },
);

export const handler = operation.handler;
