import {
  LeadCriteriaIn,
  LeadCriteriaOut,
  LeadPath,
  toLeadCriteriaOut,
} from '../../contract/lead-criteria.ts';
import { ErrorOut, ValidationErrorOut } from '../../contract/shared.ts';
import { defineOperation } from '../../pipeline/operation.ts';
import { saveLeadCriteria } from '../../services/lead-criteria.ts';

export const operation = defineOperation(
  'putLeadCriteria',
  {
    params: LeadPath,
    body: LeadCriteriaIn,
    responses: {
      200: { description: 'The saved criteria, with its Places and Areas labelled', schema: LeadCriteriaOut },
      404: { description: 'No lead with this id in this tenant', schema: ErrorOut },
      422: {
        description:
          "A bound broken (each names its field), a price bound without currency, min above max, or an area_ids entry that is not one of the Tenant's Areas",
        schema: ValidationErrorOut,
      },
    },
  },
  async ({ params, body, caller }) => {
    const view = await saveLeadCriteria(caller.tenant.tenantId, params.lead_id, body);
    return { status: 200, body: toLeadCriteriaOut(view.criteria, view) };
  },
);

export const handler = operation.handler;
