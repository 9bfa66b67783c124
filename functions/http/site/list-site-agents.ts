import { ValidationErrorOut } from '../../contract/shared.ts';
import { SiteAgentList, SiteQuery, toSiteAgentOut } from '../../contract/site.ts';
import { defineOperation } from '../../pipeline/operation.ts';
import { siteAgents, siteLanguage } from '../../services/site.ts';

export const operation = defineOperation(
  'listSiteAgents',
  {
    query: SiteQuery,
    responses: {
      200: { description: "Active Agents' public profiles, by name", schema: SiteAgentList },
      422: { description: 'A locale the site does not have', schema: ValidationErrorOut },
    },
  },
  async ({ query, caller }) => {
    siteLanguage(caller.tenant, query.locale);
    const items = (await siteAgents(caller.tenant.tenantId)).map((a) =>
      toSiteAgentOut(a.agent, a.listingCount),
    );
    return { status: 200, body: { items, total: items.length } };
  },
);

export const handler = operation.handler;
