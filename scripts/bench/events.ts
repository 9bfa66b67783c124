import { randomUUID } from 'node:crypto';
import type { Context } from 'aws-lambda';
import type { HttpEvent } from '../../functions/platform/http.ts';
import type { RouteDefinition } from '../../functions/routes.ts';

export interface BenchRequest {
  pathParameters?: Record<string, string>;
  query?: Record<string, string>;
  body?: unknown;
  headers?: Record<string, string>;
}

/**
 * The API Gateway HTTP API (payload v2) event for one request, shaped like the one
 * scripts/local/server.ts `toEvent` builds from a real HTTP request, without needing a socket.
 */
export function apiEvent(route: RouteDefinition, apiKey: string, request: BenchRequest = {}): HttpEvent {
  const params = request.pathParameters ?? {};
  const rawPath = route.path.replace(/\{(\w+)\}/g, (_m, name: string) =>
    encodeURIComponent(params[name] ?? ''),
  );
  const rawQueryString = new URLSearchParams(request.query ?? {}).toString();
  const headers: Record<string, string> = {
    host: 'bench.local',
    'user-agent': 'bench',
    authorization: `Bearer ${apiKey}`,
    ...(request.body !== undefined ? { 'content-type': 'application/json' } : {}),
    ...Object.fromEntries(Object.entries(request.headers ?? {}).map(([k, v]) => [k.toLowerCase(), v])),
  };
  const now = Date.now();
  const routeKey = `${route.method} ${route.path}`;
  return {
    version: '2.0',
    routeKey,
    rawPath,
    rawQueryString,
    headers,
    ...(request.query && Object.keys(request.query).length ? { queryStringParameters: request.query } : {}),
    ...(Object.keys(params).length ? { pathParameters: params } : {}),
    ...(request.body !== undefined ? { body: JSON.stringify(request.body) } : {}),
    isBase64Encoded: false,
    requestContext: {
      accountId: 'bench',
      apiId: 'bench',
      domainName: 'bench.local',
      domainPrefix: 'bench',
      http: {
        method: route.method,
        path: rawPath,
        protocol: 'HTTP/1.1',
        sourceIp: '127.0.0.1',
        userAgent: 'bench',
      },
      requestId: randomUUID(),
      routeKey,
      stage: '$default',
      time: new Date(now).toUTCString(),
      timeEpoch: now,
    },
  };
}

export function lambdaContext(functionName: string, requestId: string): Context {
  return {
    callbackWaitsForEmptyEventLoop: false,
    functionName,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:local:000000000000:function:${functionName}`,
    memoryLimitInMB: '1024',
    awsRequestId: requestId,
    logGroupName: `/aws/lambda/${functionName}`,
    logStreamName: 'bench',
    getRemainingTimeInMillis: () => 29_000,
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}
