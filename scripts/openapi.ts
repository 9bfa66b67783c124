/**
 * Generates the OpenAPI 3.1 document (docs/openapi.json) from the route table and each operation's
 * zod schemas, and the route and worker tables of the contributors' map (docs/architecture.md) from
 * the route and worker tables themselves: the docs cannot drift from what the code serves.
 *   npm run openapi            write them, and the reference page docs/reference.html
 *   npm run openapi -- --check exit 1 when any is out of date
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type * as z from 'zod/mini';
import { describeRequirement } from '../functions/domain/scopes.ts';
import { documentedResponses, type HeaderSpec } from '../functions/pipeline/answers.ts';
import { type Operation, shapeOf } from '../functions/pipeline/operation.ts';
import { PUBLISHABLE, type RouteDefinition } from '../functions/pipeline/route.ts';
import { routes } from '../functions/routes.ts';
import { type WorkerDefinition, workers } from '../functions/workers.ts';
import { parseCommandLine } from './command-line.ts';
import { ComponentSet, componentRef } from './openapi-components.ts';
import { EVENT_EXAMPLES, OPERATION_EXAMPLES } from './openapi-examples.ts';
import { webhooksDocument } from './openapi-webhooks.ts';
import { referencePageHtml } from './reference-page.ts';

process.env.LOG_LEVEL ??= 'SILENT';
const root = resolve(import.meta.dirname, '..');

type JsonSchema = Record<string, unknown>;

/** What each tag groups, shown above its operations (a new tag needs its line here). */
const TAG_DESCRIPTIONS: Record<string, string> = {
  Places: 'The Place catalogue: the place_code values a listing accepts',
  Listings: 'Listings (Properties): create, edit, archive and read them, and upsert by your own reference',
  'Listing photos': "A listing's gallery: import by URL, upload and confirm, order, set the cover, remove",
  Areas: "The Tenant's Areas (regions, zones, neighbourhoods, communities) that group Places and listings",
  Leads:
    'Leads: add, ingest from an integration, read, edit, archive; their criteria, matches and linked listings',
  Activities: "A Lead's tasks, calls, visits, meetings and notes",
  Agents: "The Tenant's Agents (Lead Owners)",
  Events: 'The event log of the last 30 days (catch-up for webhooks), in the webhook envelope',
  Webhooks:
    'Webhook endpoints: subscribe, enable, read the delivery log, redeliver, recover, test, rotate the secret',
  Site: "The website's reads and writes, with a publishable key (svc_pk_…) and the page's origin",
  'Webhook events': 'What the service POSTs to a subscribed endpoint, one entry per event type',
};

/** What an operation's description says beyond its summary: who may call it, and how a write is retried. */
function operationDescription(route: RouteDefinition): string {
  const who =
    route.scope === PUBLISHABLE
      ? 'Called with a publishable key (query `key`) and the page origin (query `origin`).'
      : `Needs an API key with the scope ${describeRequirement(route.scope)}.`;
  const retry =
    route.method === 'GET'
      ? ''
      : ' A retry with the same Idempotency-Key and request gets the first answer again; with another request 422; while the first still runs 409.';
  return `${route.summary}. ${who}${retry}`;
}

/** The media type of a body: its schema, and the example the operation or event shows. */
function media(schema: JsonSchema, example: unknown): Record<string, unknown> {
  return { 'application/json': { schema, ...(example === undefined ? {} : { example }) } };
}

function queryParameters(components: ComponentSet, s: z.ZodMiniType | undefined) {
  const json = (s ? components.convert(s, 'input') : undefined) as
    | { properties?: Record<string, unknown>; required?: string[] }
    | undefined;
  return Object.entries(json?.properties ?? {}).map(([name, property]) => ({
    name,
    in: 'query',
    required: json?.required?.includes(name) ?? false,
    schema: property,
  }));
}

/**
 * An answer's body: a `$ref` to its component. A body the name table misses but that has a
 * component's exact shape (the same schema written twice) refers to that component too.
 */
function bodySchema(components: ComponentSet, s: z.ZodMiniType): JsonSchema {
  const json = components.convert(s, 'output');
  if (json.$ref) return json;
  const text = JSON.stringify(json);
  const same = Object.entries(components.schemas).find(([, c]) => JSON.stringify(c) === text);
  return same ? { $ref: componentRef(same[0]) } : json;
}

/** Response headers, each documented once under components.headers (one entry per name and requiredness). */
const sharedHeaders: Record<string, HeaderSpec> = {};

function headerRef(name: string, header: HeaderSpec): { $ref: string } {
  const id = `${name.replaceAll('-', '')}${header.required ? '' : 'Optional'}`;
  sharedHeaders[id] ??= header;
  return { $ref: `#/components/headers/${id}` };
}

/** The operation's answers: the pipeline's (from its route row) merged with the handler's own. */
function responsesOf(components: ComponentSet, operation: Operation): Record<string, unknown> {
  const merged = documentedResponses(operation.steps, shapeOf(operation), operation.spec.responses);
  const examples = OPERATION_EXAMPLES[operation.route.operationId]?.responses;
  return Object.fromEntries(
    Object.entries(merged).map(([status, r]) => {
      const bodies = [
        ...new Map(
          r.schemas.map((s) => bodySchema(components, s)).map((b) => [JSON.stringify(b), b]),
        ).values(),
      ];
      const headers = Object.entries(r.headers).sort(([a], [b]) => a.localeCompare(b));
      return [
        status,
        {
          description: r.description,
          ...(headers.length
            ? {
                headers: Object.fromEntries(headers.map(([name, h]) => [name, headerRef(name, h)])),
              }
            : {}),
          ...(bodies.length
            ? {
                content: media(
                  (bodies.length === 1 ? bodies[0] : { anyOf: bodies }) as JsonSchema,
                  examples?.[status],
                ),
              }
            : {}),
        },
      ];
    }),
  );
}

const IDEMPOTENCY_RULES =
  'For 24 hours the same key with the same request (method, path, query and body) gets the first answer again, with Idempotent-Replayed: true (a 5xx is not kept: the retry runs); with another request: 422; while the first still runs: 409. A request that died without answering may be sent again after a minute: a create then answers with what the first run created, if it got that far, and never creates it twice.';
const KEY_IDEMPOTENCY = `Scoped to the API key. ${IDEMPOTENCY_RULES}`;
const SITE_IDEMPOTENCY = `Scoped to the publishable key and the visitor (one visitor's key never blocks or replays another's request): send a fresh random value (a UUID) per form submission and the same one on its re-submissions. ${IDEMPOTENCY_RULES}`;

export async function buildOpenApi(): Promise<Record<string, unknown>> {
  const components = new ComponentSet();
  // First: the events name their components and document the log's envelope as `Event`.
  const webhooks = webhooksDocument(components);
  for (const [type, example] of Object.entries(EVENT_EXAMPLES)) {
    const body = (
      webhooks[type] as { post: { requestBody: { content: Record<string, Record<string, unknown>> } } }
    ).post.requestBody.content['application/json'] as Record<string, unknown>;
    body.example = example;
  }
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routes) {
    const { operation } = (await import(
      pathToFileURL(resolve(root, 'functions/http', route.entry)).href
    )) as {
      operation: Operation;
    };
    const { spec } = operation;
    const pathSchema = (spec.params ? components.convert(spec.params, 'input') : undefined) as
      | { properties?: Record<string, unknown> }
      | undefined;
    const pathParams = [...route.path.matchAll(/\{(\w+)\}/g)].map((m) => ({
      name: m[1],
      in: 'path',
      required: true,
      schema: pathSchema?.properties?.[m[1] as string] ?? { type: 'string' },
    }));
    const site = route.scope === PUBLISHABLE;
    const writes = route.method !== 'GET';
    paths[route.path] ??= {};
    (paths[route.path] as Record<string, unknown>)[route.method.toLowerCase()] = {
      operationId: route.operationId,
      summary: route.summary,
      description: operationDescription(route),
      tags: [route.tag],
      security: [site ? { publishableKey: [] } : { apiKey: [] }],
      // One scope, or a list of which a key needs any one.
      ...(route.scope === PUBLISHABLE
        ? {}
        : typeof route.scope === 'string'
          ? { 'x-required-scope': route.scope }
          : { 'x-required-scope-any-of': route.scope }),
      parameters: [
        ...pathParams,
        ...queryParameters(components, spec.query),
        ...(writes
          ? [
              {
                name: 'Idempotency-Key',
                in: 'header',
                required: false,
                description: site ? SITE_IDEMPOTENCY : KEY_IDEMPOTENCY,
                schema: { type: 'string', minLength: 1, maxLength: 255 },
              },
            ]
          : []),
      ],
      ...(spec.body
        ? {
            requestBody: {
              required: true,
              content: media(
                components.convert(spec.body, 'input'),
                OPERATION_EXAMPLES[route.operationId]?.request,
              ),
            },
          }
        : {}),
      responses: responsesOf(components, operation),
    };
  }
  const tags = [...new Set([...routes.map((r) => r.tag as string), 'Webhook events'])].map((name) => {
    const description = TAG_DESCRIPTIONS[name];
    if (!description) throw new Error(`Tag ${name} has no description in TAG_DESCRIPTIONS`);
    return { name, description };
  });
  return {
    openapi: '3.1.0',
    info: {
      title: 'Listings and Leads API',
      version: '1',
      // No open-source licence: the API and its document are the operator's own.
      license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' },
      // Who answers integrators: the operator of the deployment (the guides say how to reach them).
      contact: { name: 'The operator of this deployment (see docs/getting-started.md)' },
      description:
        'Multi-tenant listings and leads for real-estate agencies. Every request acts inside the Tenant of its API key. ' +
        'RateLimit headers follow the IETF draft; X-RateLimit-Reset is seconds until the window resets (not a timestamp). ' +
        "A successful site GET (cacheable at the edge) carries no RateLimit or X-RateLimit-* headers: they describe one visitor's budget. " +
        'Cursors are opaque and signed: pass next_cursor unchanged with the same filters.',
    },
    tags,
    servers: [{ url: '{base_url}', variables: { base_url: { default: 'http://127.0.0.1:3000' } } }],
    components: {
      securitySchemes: {
        apiKey: {
          type: 'http',
          scheme: 'bearer',
          description:
            'Secret key svc_live_…. Each operation names the scope it needs (`x-required-scope`, or `x-required-scope-any-of`). ' +
            'A scope grants what its name says: `properties:write` also reads listings; `leads:write` and ' +
            '`activities:write` grant writes only (the created or edited Lead or Activity a write answers with is its own result), ' +
            'so a key that reads Leads, Inquiries, Activities or their events holds `leads:read` / `activities:read` as well.',
        },
        publishableKey: {
          type: 'apiKey',
          in: 'query',
          name: 'key',
          description:
            'Publishable key svc_pk_… of the site routes, with the page origin in `origin`: it must be one of the ' +
            "key's allowed origins, and only an allowed origin gets CORS headers",
        },
      },
      headers: Object.fromEntries(
        Object.entries(sharedHeaders)
          .sort(([a], [b]) => a.localeCompare(b))
          .map(([id, h]) => [id, { description: h.description, required: h.required, schema: h.schema }]),
      ),
      schemas: components.sorted(),
    },
    paths,
    // What the service POSTs to subscribed endpoints, one entry per event type.
    webhooks,
  };
}

export function routeTableMarkdown(): string {
  const rows = routes.map(
    (r) =>
      `| ${r.method} | \`${r.path}\` | ${r.scope === PUBLISHABLE ? 'publishable key' : describeRequirement(r.scope)} | ${r.summary} | \`functions/http/${r.entry}\` |`,
  );
  return ['| Method | Path | Scope | What it does | Handler |', '|---|---|---|---|---|', ...rows].join('\n');
}

/** The workers of functions/workers.ts, one row each: what the contributors' map lists. */
export function workerTableMarkdown(): string {
  const triggerOf = (w: WorkerDefinition): string => {
    const t = w.trigger;
    if (t.kind === 'stream') return `table stream (batches of ${t.batchSize}, ${t.retryAttempts} retries)`;
    if (t.kind === 'queue')
      return `\`${t.queue}\` queue (batches of ${t.batchSize}, at most ${t.maxConcurrency} at once)`;
    return `schedule (${t.summary})`;
  };
  const rows = (workers as readonly WorkerDefinition[]).map(
    (w) =>
      `| \`${w.name}\` | ${triggerOf(w)} | ${w.description} | ${w.uses.map((u) => `\`${u}\``).join(', ') || '—'} | \`${w.entry}\` |`,
  );
  return ['| Worker | Trigger | What it does | Uses | Entry |', '|---|---|---|---|---|', ...rows].join('\n');
}

/** The page whose generated tables `npm run openapi` keeps current. */
export const GENERATED_TABLES_PAGE = 'docs/architecture.md';

const TABLES = [
  { name: 'routes', markdown: routeTableMarkdown },
  { name: 'workers', markdown: workerTableMarkdown },
] as const;

/** `page` with the text between each table's markers replaced by the table as the code has it. */
export function withGeneratedTables(page: string): string {
  let result = page;
  for (const { name, markdown } of TABLES) {
    const startMarker = `<!-- ${name}:start (generated by npm run openapi) -->`;
    const endMarker = `<!-- ${name}:end -->`;
    const start = result.indexOf(startMarker);
    const end = result.indexOf(endMarker);
    if (start < 0 || end < start) throw new Error(`${GENERATED_TABLES_PAGE} lacks the ${name} markers`);
    result = `${result.slice(0, start + startMarker.length)}\n${markdown()}\n${result.slice(end)}`;
  }
  return result;
}

if (import.meta.main) {
  const { values } = parseCommandLine({
    usage: 'npm run openapi [-- --check]',
    summary:
      'Writes docs/openapi.json, docs/reference.html and the route and worker tables of docs/architecture.md from the route table and the zod contract.',
    options: { check: { type: 'boolean', default: false } },
    help: { check: 'write nothing; exit 1 when any of them is out of date' },
  });
  const check = values.check;
  const openapiFile = resolve(root, 'docs/openapi.json');
  const tablesFile = resolve(root, GENERATED_TABLES_PAGE);
  const openapi = `${JSON.stringify(await buildOpenApi(), null, 2)}\n`;
  const tablesPage = readFileSync(tablesFile, 'utf8');
  const newTablesPage = withGeneratedTables(tablesPage);
  if (check) {
    const stale = [
      ...(readFileSync(openapiFile, 'utf8') !== openapi ? ['docs/openapi.json'] : []),
      ...(tablesPage !== newTablesPage ? [`${GENERATED_TABLES_PAGE} route and worker tables`] : []),
    ];
    if (stale.length) {
      console.error(`Out of date: ${stale.join(', ')}. Run: npm run openapi`);
      process.exit(1);
    }
  } else {
    writeFileSync(openapiFile, openapi);
    writeFileSync(tablesFile, newTablesPage);
    writeFileSync(resolve(root, 'docs/reference.html'), referencePageHtml(JSON.parse(openapi)));
    console.error(`Wrote docs/openapi.json, docs/reference.html and the tables of ${GENERATED_TABLES_PAGE}`);
  }
}
