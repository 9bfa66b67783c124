import { ValidationErrorOut } from '../../contract/shared.ts';
import { SiteQuery } from '../../contract/site.ts';
import { ThemeOut, toThemeOut } from '../../contract/theme.ts';
import { defineOperation } from '../../pipeline/operation.ts';
import { siteLanguage } from '../../services/site.ts';

export const operation = defineOperation(
  'getTheme',
  {
    query: SiteQuery,
    responses: {
      200: { description: "The website's theme (defaults where the Tenant set none)", schema: ThemeOut },
      422: { description: 'A locale the site does not have', schema: ValidationErrorOut },
    },
  },
  async ({ query, caller }) => {
    siteLanguage(caller.tenant, query.locale);
    return { status: 200, body: toThemeOut(caller.tenant) };
  },
);

export const handler = operation.handler;
