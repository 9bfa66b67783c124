import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Context } from 'aws-lambda';
import { decodePathSegment, type HttpEvent, type HttpResponse } from '../../functions/api/http.ts';
import { MAX_BODY_BYTES } from '../../functions/api/middleware/validate-input.ts';
import { isPublishable, type RouteDefinition } from '../../functions/api/route.ts';
import { runAsFunction } from '../../functions/kernel/aws-operations.ts';
import { routes } from '../../functions/routes.ts';
import { httpEvent, lambdaContext } from './lambda-events.ts';

type LambdaHandler = (event: HttpEvent, context: Context) => Promise<HttpResponse>;

interface MountedRoute {
  route: RouteDefinition;
  pattern: RegExp;
  paramNames: string[];
  load: () => Promise<LambdaHandler>;
}
/** The name the preflight function's AWS calls are recorded under (its CDK construct id too). */
export const SITE_PREFLIGHT_FUNCTION = 'sitePreflight';

const FUNCTIONS_HTTP = resolve(import.meta.dirname, '../../functions/http');

/** `/v1/properties/{property_id}` → a regex with one capture per parameter. */
function compile(path: string): { pattern: RegExp; paramNames: string[] } {
  const paramNames: string[] = [];
  const source = path
    .split('/')
    .map((segment) =>
      segment.replace(/\{(\w+)\}|[^{}]+/g, (match, name?: string) => {
        if (name) {
          paramNames.push(name);
          return '([^/]+)';
        }
        return match.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      }),
    )
    .join('/');
  return { pattern: new RegExp(`^${source}$`), paramNames };
}

/** Mounts every row of the route table, loading each handler module on its first request. */
export function mountRoutes(): MountedRoute[] {
  return routes.map((route) => {
    let handler: Promise<LambdaHandler> | undefined;
    return {
      route,
      ...compile(route.path),
      load: () => {
        handler ??= import(pathToFileURL(resolve(FUNCTIONS_HTTP, route.entry)).href).then(
          (m: { handler: LambdaHandler }) => m.handler,
        );
        return handler;
      },
    };
  });
}

class BodyTooLarge extends Error {}

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) throw new BodyTooLarge();
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

/** The API Gateway event for a real HTTP request to a mounted route. */
export function toEvent(
  req: IncomingMessage,
  url: URL,
  body: Buffer,
  mounted: MountedRoute,
  match: RegExpMatchArray,
): HttpEvent {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (value !== undefined) headers[name.toLowerCase()] = Array.isArray(value) ? value.join(',') : value;
  }
  const query: Record<string, string> = {};
  for (const [name, value] of url.searchParams)
    query[name] = name in query ? `${query[name]},${value}` : value;
  return httpEvent({
    route: mounted.route,
    rawPath: url.pathname,
    rawQueryString: url.search.slice(1),
    headers,
    query,
    pathParameters: Object.fromEntries(
      mounted.paramNames.map((n, i) => [n, decodePathSegment(match[i + 1] ?? '')]),
    ),
    body: body.length ? body.toString('utf8') : undefined,
    sourceIp: req.socket.remoteAddress ?? '127.0.0.1',
    protocol: `HTTP/${req.httpVersion}`,
  });
}

function send(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const text = body === undefined ? '' : JSON.stringify(body);
  res.writeHead(status, { ...(text ? { 'Content-Type': 'application/json' } : {}), ...headers });
  res.end(text);
}

export interface ApiServerOptions {
  port: number;
  host?: string;
  /** One line per request; silent when omitted. */
  log?: (line: string) => void;
  /**
   * Serves what is not an API route (the example site, the reference page): answers and returns
   * true, or returns false to let the route table answer.
   */
  pages?: (req: IncomingMessage, res: ServerResponse, url: URL) => boolean;
}

/**
 * The local API: the same handler modules as Lambda, each invoked with the API Gateway event an
 * HTTP request would produce. Routes come only from the route table.
 */
export async function startApiServer(options: ApiServerOptions): Promise<{ server: Server; url: string }> {
  const mounted = mountRoutes();
  const server = createServer(async (req, res) => {
    const started = performance.now();
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    let status = 500;
    try {
      if (!url.pathname.startsWith('/v1/') && options.pages?.(req, res, url)) {
        status = res.statusCode;
        return;
      }
      if (req.method === 'OPTIONS') {
        // CORS preflight of a site path: one handler for all of them, as in API Gateway (lib/constructs/site-api.ts).
        const preflight = mounted
          .filter((m) => isPublishable(m.route))
          .map((m) => ({ m, match: url.pathname.match(m.pattern) }))
          .find((c): c is { m: MountedRoute; match: RegExpMatchArray } => c.match !== null);
        if (preflight) {
          const event = toEvent(req, url, Buffer.alloc(0), preflight.m, preflight.match);
          const { handler } = await import('../../functions/http/site/preflight.ts');
          const response = await runAsFunction(SITE_PREFLIGHT_FUNCTION, () => handler(event));
          status = response.statusCode;
          res.writeHead(status, response.headers);
          res.end(response.body ?? '');
          return;
        }
      }
      // Only the routes of the request's method are matched on the way to a handler; the others
      // only when none matched, to tell a 405 (with Allow) from a 404.
      let hit: { m: MountedRoute; match: RegExpMatchArray } | undefined;
      for (const m of mounted) {
        if (m.route.method !== req.method) continue;
        const match = url.pathname.match(m.pattern);
        if (match) {
          hit = { m, match };
          break;
        }
      }
      if (!hit) {
        const candidates = mounted.filter((m) => m.pattern.test(url.pathname));
        status = candidates.length ? 405 : 404;
        const allow = candidates.map((m) => m.route.method).join(', ');
        send(
          res,
          status,
          { detail: status === 404 ? 'Not Found' : 'Method Not Allowed' },
          allow ? { Allow: allow } : {},
        );
        return;
      }
      let body: Buffer;
      try {
        body = await readBody(req);
      } catch (error) {
        if (!(error instanceof BodyTooLarge)) throw error;
        status = 413;
        send(res, 413, { detail: 'The request body is larger than 1 MB' }, { Connection: 'close' });
        return;
      }
      const event = toEvent(req, url, body, hit.m, hit.match);
      const handler = await hit.m.load();
      const { operationId } = hit.m.route;
      // One process serves every route here: the AWS calls are attributed to the route's function.
      const response = await runAsFunction(operationId, () =>
        handler(event, lambdaContext(operationId, event.requestContext.requestId)),
      );
      status = response.statusCode;
      res.writeHead(status, response.headers);
      res.end(response.body ?? '');
    } catch (error) {
      status = 500;
      console.error(error);
      if (!res.headersSent) send(res, 500, { detail: 'Internal error' });
    } finally {
      options.log?.(
        `${req.method} ${url.pathname}${url.search} → ${status} ${(performance.now() - started).toFixed(1)}ms`,
      );
    }
  });
  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((resolveListen, reject) => {
    server.once('error', reject);
    server.listen(options.port, host, () => resolveListen());
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : options.port;
  return { server, url: `http://${host}:${port}` };
}
