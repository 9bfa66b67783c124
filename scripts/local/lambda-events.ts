import { randomUUID } from 'node:crypto';
import type { Context } from 'aws-lambda';
import type { HttpEvent } from '../../functions/pipeline/http.ts';
import type { RouteDefinition } from '../../functions/pipeline/route.ts';

export interface HttpEventParts {
  route: RouteDefinition;
  /**
   * The API Gateway route key the request matched, `pathParameters` named as in it.
   * @default - the row's own method and path, `pathParameters` named as in the row
   */
  routeKey?: string;
  rawPath: string;
  rawQueryString: string;
  /** Lowercased names, repeated headers joined with commas (as API Gateway does). */
  headers: Record<string, string>;
  query: Record<string, string>;
  pathParameters: Record<string, string>;
  body?: string | undefined;
  sourceIp: string;
  protocol: string;
}

/**
 * The API Gateway HTTP API (payload v2) event Lambda receives for a request. The local server builds
 * it from real HTTP requests, the bench from its own; the handlers cannot tell them from AWS's.
 */
export function httpEvent(parts: HttpEventParts): HttpEvent {
  const now = Date.now();
  const routeKey = parts.routeKey ?? `${parts.route.method} ${parts.route.path}`;
  return {
    version: '2.0',
    routeKey,
    rawPath: parts.rawPath,
    rawQueryString: parts.rawQueryString,
    headers: parts.headers,
    ...(Object.keys(parts.query).length ? { queryStringParameters: parts.query } : {}),
    ...(Object.keys(parts.pathParameters).length ? { pathParameters: parts.pathParameters } : {}),
    ...(parts.body ? { body: parts.body } : {}),
    isBase64Encoded: false,
    requestContext: {
      accountId: 'local',
      apiId: 'local',
      domainName: parts.headers.host ?? '127.0.0.1',
      domainPrefix: 'local',
      http: {
        method: parts.route.method,
        path: parts.rawPath,
        protocol: parts.protocol,
        sourceIp: parts.sourceIp,
        userAgent: parts.headers['user-agent'] ?? '',
      },
      requestId: randomUUID(),
      routeKey,
      stage: '$default',
      time: new Date(now).toUTCString(),
      timeEpoch: now,
    },
  };
}

/** The Lambda context of one invocation. */
export function lambdaContext(functionName: string, requestId: string): Context {
  return {
    callbackWaitsForEmptyEventLoop: false,
    functionName,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:local:000000000000:function:${functionName}`,
    memoryLimitInMB: '1024',
    awsRequestId: requestId,
    logGroupName: `/aws/lambda/${functionName}`,
    logStreamName: 'local',
    getRemainingTimeInMillis: () => 29_000,
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}
