import type { HttpEvent } from '../../functions/api/http.ts';
import type { RouteDefinition } from '../../functions/api/route.ts';
import { httpEvent, lambdaContext } from '../local/lambda-events.ts';

export interface BenchRequest {
  pathParameters?: Record<string, string>;
  query?: Record<string, string>;
  body?: unknown;
  headers?: Record<string, string>;
}

/** The API Gateway event for one bench request (the same builder the local server uses). */
export function apiEvent(route: RouteDefinition, apiKey: string, request: BenchRequest = {}): HttpEvent {
  const params = request.pathParameters ?? {};
  const rawPath = route.path.replace(/\{(\w+)\}/g, (_m, name: string) =>
    encodeURIComponent(params[name] ?? ''),
  );
  const headers: Record<string, string> = {
    host: 'bench.local',
    'user-agent': 'bench',
    authorization: `Bearer ${apiKey}`,
    ...(request.body !== undefined ? { 'content-type': 'application/json' } : {}),
    ...Object.fromEntries(Object.entries(request.headers ?? {}).map(([k, v]) => [k.toLowerCase(), v])),
  };
  return httpEvent({
    route,
    rawPath,
    rawQueryString: new URLSearchParams(request.query ?? {}).toString(),
    headers,
    query: request.query ?? {},
    pathParameters: params,
    body: request.body !== undefined ? JSON.stringify(request.body) : undefined,
    sourceIp: '127.0.0.1',
    protocol: 'HTTP/1.1',
  });
}

export { lambdaContext };
