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
import * as z from 'zod/mini';
import { documentedResponses, type HeaderSpec } from '../functions/api/answers.ts';
import { type Operation, shapeOf } from '../functions/api/operation.ts';
import { PUBLISHABLE } from '../functions/api/route.ts';
import { ErrorOut, InternalErrorOut, ValidationErrorOut } from '../functions/contract/errors.ts';
import { describeRequirement } from '../functions/domain/scopes.ts';
import { routes } from '../functions/routes.ts';
import { type WorkerDefinition, workers } from '../functions/workers.ts';
import { parseCommandLine } from './command-line.ts';
import { webhooksDocument } from './openapi-webhooks.ts';
import { referencePageHtml } from './reference-page.ts';

process.env.LOG_LEVEL ??= 'SILENT';
const root = resolve(import.meta.dirname, '..');

function schema(s: z.ZodMiniType | undefined, io: 'input' | 'output'): Record<string, unknown> | undefined {
  if (!s) return undefined;
  const json = z.toJSONSchema(s, { io, unrepresentable: 'any' }) as Record<string, unknown>;
  delete json.$schema;
  return json;
}

function queryParameters(s: z.ZodMiniType | undefined) {
  const json = schema(s, 'input') as
    | { properties?: Record<string, unknown>; required?: string[] }
    | undefined;
  return Object.entries(json?.properties ?? {}).map(([name, property]) => ({
    name,
    in: 'query',
    required: json?.required?.includes(name) ?? false,
    schema: property,
  }));
}

/** The error bodies every operation shares, documented once under components.schemas. */
const sharedSchemas = {
  Error: ErrorOut,
  ValidationError: ValidationErrorOut,
  InternalError: InternalErrorOut,
};
const sharedByJson = new Map(
  Object.entries(sharedSchemas).map(([name, s]) => [
    JSON.stringify(schema(s, 'output')),
    { $ref: `#/components/schemas/${name}` },
  ]),
);

function bodySchema(s: z.ZodMiniType): Record<string, unknown> {
  const json = schema(s, 'output') as Record<string, unknown>;
  return sharedByJson.get(JSON.stringify(json)) ?? json;
}

/** Response headers, each documented once under components.headers (one entry per name and requiredness). */
const sharedHeaders: Record<string, HeaderSpec> = {};

function headerRef(name: string, header: HeaderSpec): { $ref: string } {
  const id = `${name.replaceAll('-', '')}${header.required ? '' : 'Optional'}`;
  sharedHeaders[id] ??= header;
  return { $ref: `#/components/headers/${id}` };
}

/** The operation's answers: the pipeline's (from its route row) merged with the handler's own. */
function responsesOf(operation: Operation): Record<string, unknown> {
  const merged = documentedResponses(operation.steps, shapeOf(operation), operation.spec.responses);
  return Object.fromEntries(
    Object.entries(merged).map(([status, r]) => {
      const bodies = [
        ...new Map(r.schemas.map((s) => bodySchema(s)).map((b) => [JSON.stringify(b), b])).values(),
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
                content: {
                  'application/json': { schema: bodies.length === 1 ? bodies[0] : { anyOf: bodies } },
                },
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
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routes) {
    const { operation } = (await import(
      pathToFileURL(resolve(root, 'functions/http', route.entry)).href
    )) as {
      operation: Operation;
    };
    const { spec } = operation;
    const pathSchema = schema(spec.params, 'input') as { properties?: Record<string, unknown> } | undefined;
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
        ...queryParameters(spec.query),
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
              content: { 'application/json': { schema: schema(spec.body, 'input') } },
            },
          }
        : {}),
      responses: responsesOf(operation),
    };
  }
  const events = webhooksDocument((s) => schema(s, 'output') as Record<string, unknown>);
  return {
    openapi: '3.1.0',
    info: {
      title: 'Listings and Leads API',
      version: '1',
      // No open-source licence: the API and its document are the operator's own.
      license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' },
      description:
        'Multi-tenant listings and leads for real-estate agencies. Every request acts inside the Tenant of its API key. ' +
        'RateLimit headers follow the IETF draft; X-RateLimit-Reset is seconds until the window resets (not a timestamp). ' +
        "A successful site GET (cacheable at the edge) carries no RateLimit or X-RateLimit-* headers: they describe one visitor's budget. " +
        'Cursors are opaque and signed: pass next_cursor unchanged with the same filters.',
    },
    servers: [{ url: '{base_url}', variables: { base_url: { default: 'http://127.0.0.1:3000' } } }],
    components: {
      securitySchemes: {
        apiKey: {
          type: 'http',
          scheme: 'bearer',
          description:
            'Secret key svc_live_…. Each operation names the scope it needs (`x-required-scope`, or `x-required-scope-any-of`). ' +
            'A scope grants exactly what interface §5 says: `properties:write` also reads listings; `leads:write` and ' +
            '`activities:write` grant writes only (the created or edited Lead or Activity a write answers with is its own result), ' +
            'so a key that reads Leads, Inquiries, Activities or their events holds `leads:read` / `activities:read` as well.',
        },
        publishableKey: {
          type: 'apiKey',
          in: 'query',
          name: 'key',
          description:
            'Publishable key svc_pk_… of the site routes, with the page origin in `origin` (interface §5: origin rules, CORS)',
        },
      },
      headers: Object.fromEntries(
        Object.entries(sharedHeaders)
          .sort(([a], [b]) => a.localeCompare(b))
          .map(([id, h]) => [id, { description: h.description, required: h.required, schema: h.schema }]),
      ),
      schemas: {
        ...Object.fromEntries(Object.entries(sharedSchemas).map(([name, s]) => [name, schema(s, 'output')])),
        ...events.schemas,
      },
    },
    paths,
    // What the service POSTs to subscribed endpoints (interface §6), one entry per event type.
    webhooks: events.webhooks,
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
