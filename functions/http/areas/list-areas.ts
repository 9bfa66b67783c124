import * as z from 'zod/mini';
import { pageOf } from '../../contract/shared.ts';
import { listAreas } from '../../data/areas.ts';
import { defineOperation } from '../../pipeline/operation.ts';
import { presentArea } from '../../services/areas.ts';

export const AreaOut = z.object({
  id: z.uuid(),
  kind: z.enum(['region', 'zone', 'neighborhood', 'community']),
  name: z.string(),
  place_codes: z
    .array(z.string())
    .check(z.describe('The Places the Area covers (its rule); empty for a community')),
  created_at: z.string(),
  updated_at: z.string(),
});

export const operation = defineOperation(
  'listAreas',
  {
    responses: {
      200: { description: 'Every Area of the Tenant, in id order (one page)', schema: pageOf(AreaOut) },
    },
  },
  async ({ caller }) => ({
    status: 200,
    body: { data: (await listAreas(caller.tenant.tenantId)).map(presentArea), next_cursor: null },
  }),
);

export const handler = operation.handler;
