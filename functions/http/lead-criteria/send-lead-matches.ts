import { LeadPath, MatchSendIn, MatchSendOut } from '../../contract/lead-criteria.ts';
import { ErrorOut, ValidationErrorOut } from '../../contract/shared.ts';
import { defineOperation } from '../../pipeline/operation.ts';
import { sendLeadMatches } from '../../services/matches.ts';

export const operation = defineOperation(
  'sendLeadMatches',
  {
    params: LeadPath,
    body: MatchSendIn,
    responses: {
      200: { description: 'Emailed; sent_at recorded for each listing', schema: MatchSendOut },
      404: { description: 'No lead with this id in this tenant', schema: ErrorOut },
      422: {
        description:
          "The lead has no email (at body), or a listing is not the Tenant's or not a current match (at body.property_ids[i])",
        schema: ValidationErrorOut,
      },
    },
  },
  async ({ params, body, caller }) => {
    const sent = await sendLeadMatches(caller.tenant, params.lead_id, body.property_ids);
    return {
      status: 200,
      body: { sent: sent.map((s) => ({ property_id: s.propertyId, sent_at: s.sentAt })) },
    };
  },
);

export const handler = operation.handler;
