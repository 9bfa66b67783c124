import { SiteAgentOut, SiteQuery, SlugPath, toSiteAgentOut } from '../../contract/site.ts';
import { NotFoundError } from '../../kernel/errors.ts';
import { defineOperation } from '../../pipeline/operation.ts';
import { siteAgents, siteLanguage } from '../../services/site.ts';
import { siteReadResponses } from './property-reads.ts';

export const operation = defineOperation(
  'getSiteAgentBySlug',
  {
    params: SlugPath,
    query: SiteQuery,
    responses: siteReadResponses(
      { description: "The active Agent's public profile", schema: SiteAgentOut },
      'No active Agent with this slug',
    ),
  },
  async ({ params, query, caller }) => {
    siteLanguage(caller.tenant, query.locale);
    const found = (await siteAgents(caller.tenant.tenantId)).find((a) => a.agent.slug === params.slug);
    if (!found) throw new NotFoundError('No active Agent with this slug');
    return { status: 200, body: toSiteAgentOut(found.agent, found.listingCount) };
  },
);

export const handler = operation.handler;
