import { defineOperation } from '../../api/operation.ts';
import { ErrorOut, ValidationErrorOut } from '../../contract/shared.ts';
import { SiteAgentOut, SiteQuery, SlugPath, toSiteAgentOut } from '../../contract/site.ts';
import { NotFoundError } from '../../kernel/errors.ts';
import { siteAgents, siteLanguage } from '../../services/site.ts';

export const operation = defineOperation(
  'getSiteAgentBySlug',
  {
    params: SlugPath,
    query: SiteQuery,
    responses: {
      200: { description: "The active Agent's public profile", schema: SiteAgentOut },
      404: { description: 'No active Agent with this slug', schema: ErrorOut },
      422: { description: 'A locale the site does not have', schema: ValidationErrorOut },
    },
  },
  async ({ params, query, caller }) => {
    siteLanguage(caller.tenant, query.locale);
    const found = (await siteAgents(caller.tenant.tenantId)).find((a) => a.agent.slug === params.slug);
    if (!found) throw new NotFoundError('No active Agent with this slug');
    return { status: 200, body: toSiteAgentOut(found.agent, found.listingCount) };
  },
);

export const handler = operation.handler;
