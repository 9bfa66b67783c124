import { LeadCriteriaOut, LeadPath, toLeadCriteriaOut } from '../../contract/lead-criteria.ts';
import { ErrorOut, ValidationErrorOut } from '../../contract/shared.ts';
import { defineOperation } from '../../pipeline/operation.ts';
import { readLeadCriteria } from '../../services/lead-criteria.ts';

export const operation = defineOperation(
  'getLeadCriteria',
  {
    params: LeadPath,
    responses: {
      200: {
        description: 'The criteria (all defaults and updated_at null until first saved)',
        schema: LeadCriteriaOut,
      },
      404: { description: 'No lead with this id in this tenant', schema: ErrorOut },
      422: { description: 'lead_id is not a UUID', schema: ValidationErrorOut },
    },
  },
  async ({ params, caller }) => {
    const view = await readLeadCriteria(caller.tenant.tenantId, params.lead_id);
    return { status: 200, body: toLeadCriteriaOut(view.criteria, view) };
  },
);

export const handler = operation.handler;
