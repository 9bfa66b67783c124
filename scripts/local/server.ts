import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Context } from 'aws-lambda';
import { runAsFunction } from '../../functions/kernel/aws-operations.ts';
import { decodePathSegment, type HttpEvent, type HttpResponse } from '../../functions/pipeline/http.ts';
import { MAX_BODY_BYTES } from '../../functions/pipeline/middleware/validate-input.ts';
import {
  isPublishable,
  NO_ROUTE_BODY,
  type RouteDefinition,
  routeKeyPaths,
} from '../../functions/pipeline/route.ts';
import { routes } from '../../functions/routes.ts';
import { httpEvent, lambdaContext } from './lambda-events.ts';

type LambdaHandler = (event: HttpEvent, context: Context) => Promise<HttpResponse>;

export interface MountedRoute {
  route: RouteDefinition;
  /** The row's own path: every segment as written, the literal text around a variable included. */
  pattern: RegExp;
  /** The path of the route's API Gateway route key: what the event's `routeKey` and `pathParameters` follow. */
  keyPath: string;
  load: () => Promise<LambdaHandler>;
}
/** The name the preflight function's AWS calls are recorded under (its CDK construct id too). */
export const SITE_PREFLIGHT_FUNCTION = 'sitePreflight';

const FUNCTIONS_HTTP = resolve(import.meta.dirname, '../../functions/http');

/** `/v1/properties/{property_id}` → a regex that matches the row's path and nothing else. */
function compile(path: string): RegExp {
  const source = path
    .split('/')
    .map((segment) =>
      segment.replace(/\{(\w+)\}|[^{}]+/g, (match, name?: string) =>
        name ? '[^/]+' : match.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'),
      ),
    )
    .join('/');
  return new RegExp(`^${source}$`);
}

/** Mounts every row of the route table, loading each handler module on its first request. */
export function mountRoutes(): MountedRoute[] {
  const keyPaths = routeKeyPaths(routes);
  return routes.map((route) => {
    let handler: Promise<LambdaHandler> | undefined;
    return {
      route,
      pattern: compile(route.path),
      keyPath: keyPaths.get(route.operationId) as string,
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

/**
 * The path parameters API Gateway hands over for `pathname` on `keyPath`: named as in the route key,
 * each the whole segment, decoded.
 */
function routeKeyParameters(keyPath: string, pathname: string): Record<string, string> {
  const segments = pathname.split('/');
  const parameters: Record<string, string> = {};
  for (const [index, segment] of keyPath.split('/').entries()) {
    const name = segment.match(/^\{(\w+)\}$/)?.[1];
    if (name) parameters[name] = decodePathSegment(segments[index] ?? '');
  }
  return parameters;
}

/** The row that answers `method` on `pathname`, or why none does (404, or 405 with the methods that would). */
export type RouteMatch = { mounted: MountedRoute } | { status: 404 | 405; allow: string[] };

/**
 * Only the routes of the request's method are matched on the way to a handler; the others only when
 * none matched, to tell a 405 (with Allow) from a 404.
 */
export function matchRoute(mounted: readonly MountedRoute[], method: string, pathname: string): RouteMatch {
  const hit = mounted.find((m) => m.route.method === method && m.pattern.test(pathname));
  if (hit) return { mounted: hit };
  const allow = mounted.filter((m) => m.pattern.test(pathname)).map((m) => m.route.method);
  return { status: allow.length ? 405 : 404, allow };
}

/** The API Gateway event for a real HTTP request to a mounted route, as its route key has it. */
export function toEvent(req: IncomingMessage, url: URL, body: Buffer, mounted: MountedRoute): HttpEvent {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (value !== undefined) headers[name.toLowerCase()] = Array.isArray(value) ? value.join(',') : value;
  }
  const query: Record<string, string> = {};
  for (const [name, value] of url.searchParams)
    query[name] = name in query ? `${query[name]},${value}` : value;
  return httpEvent({
    route: mounted.route,
    routeKey: `${mounted.route.method} ${mounted.keyPath}`,
    rawPath: url.pathname,
    rawQueryString: url.search.slice(1),
    headers,
    query,
    pathParameters: routeKeyParameters(mounted.keyPath, url.pathname),
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
        const preflight = mounted.find((m) => isPublishable(m.route) && m.pattern.test(url.pathname));
        if (preflight) {
          const event = toEvent(req, url, Buffer.alloc(0), preflight);
          const { handler } = await import('../../functions/http/site/preflight.ts');
          const response = await runAsFunction(SITE_PREFLIGHT_FUNCTION, () => handler(event));
          status = response.statusCode;
          res.writeHead(status, response.headers);
          res.end(response.body ?? '');
          return;
        }
      }
      const hit = matchRoute(mounted, req.method ?? 'GET', url.pathname);
      if (!('mounted' in hit)) {
        status = hit.status;
        send(
          res,
          status,
          status === 404 ? NO_ROUTE_BODY : { detail: 'Method Not Allowed' },
          hit.allow.length ? { Allow: hit.allow.join(', ') } : {},
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
      const event = toEvent(req, url, body, hit.mounted);
      const handler = await hit.mounted.load();
      const { operationId } = hit.mounted.route;
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
