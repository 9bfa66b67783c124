import type { RouteDefinition } from '../../pipeline/route.ts';

/** Rows of the route table (functions/routes.ts) for this resource. */
export const activityRoutes = [
  {
    operationId: 'createActivity',
    method: 'POST',
    path: '/v1/leads/{lead_id}/activities',
    scope: 'activities:write',
    entry: 'activities/create-activity.ts',
    summary: 'Add an Activity to a Lead (due_at required for task, visit and meeting)',
    tag: 'Activities',
  },
  {
    operationId: 'listLeadActivities',
    method: 'GET',
    path: '/v1/leads/{lead_id}/activities',
    scope: 'activities:read',
    entry: 'activities/list-lead-activities.ts',
    summary: "List a Lead's Activities, least recently updated first",
    tag: 'Activities',
  },
  {
    operationId: 'listActivities',
    method: 'GET',
    path: '/v1/activities',
    scope: 'activities:read',
    entry: 'activities/list-activities.ts',
    summary: 'List every Activity of the tenant, least recently updated first',
    tag: 'Activities',
  },
  {
    operationId: 'getActivity',
    method: 'GET',
    path: '/v1/activities/{activity_id}',
    scope: 'activities:read',
    entry: 'activities/get-activity.ts',
    summary: 'Read one Activity',
    tag: 'Activities',
  },
  {
    operationId: 'updateActivity',
    method: 'PATCH',
    path: '/v1/activities/{activity_id}',
    scope: 'activities:write',
    entry: 'activities/update-activity.ts',
    summary: 'Edit an Activity (fields present change, null clears); completed true completes, false reopens',
    tag: 'Activities',
  },
] as const satisfies readonly RouteDefinition[];
