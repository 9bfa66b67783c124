import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';

export type HttpEvent = APIGatewayProxyEventV2;
export type HttpResponse = APIGatewayProxyStructuredResultV2 & {
  statusCode: number;
  headers: Record<string, string>;
  body?: string;
};

export function jsonResponse(
  statusCode: number,
  body: unknown,
  headers: Record<string, string> = {},
): HttpResponse {
  if (body === undefined) return { statusCode, headers: { ...headers } };
  return {
    statusCode,
    headers: { 'Content-Type': 'application/json', ...headers },
    body: JSON.stringify(body),
  };
}

/**
 * Case-insensitive header read (API Gateway lowercases, local callers may not). The lowercase name is
 * looked up first: a gateway event always has it, and then no other header name is lowercased.
 */
export function header(event: HttpEvent, name: string): string | undefined {
  const wanted = name.toLowerCase();
  const headers = event.headers ?? {};
  const exact = headers[wanted];
  if (exact !== undefined) return exact;
  for (const [key, value] of Object.entries(headers)) {
    if (key.toLowerCase() === wanted) return value;
  }
  return undefined;
}

export type LambdaContext = Context;

/**
 * A path segment as the local server hands it to a handler: strictly decoded, as API Gateway's
 * HTTP API decodes path parameters. A segment that is not a valid percent-encoding of UTF-8
 * (`%ZZ`, a cut escape, an encoded surrogate, overlong UTF-8) is passed on as sent, as the gateway
 * may do, so that the handler's validation answers it (see {@link pathParameterProblem}).
 */
export function decodePathSegment(raw: string): string {
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw;
  }
}

/**
 * Why a path parameter value cannot be read as text, or undefined when it can. Values arrive
 * decoded, but a gateway may pass a segment it could not decode as sent, or decode it leniently
 * into a lone surrogate (which no UTF-8 store accepts) or U+FFFD. Both forms are refused here, in
 * the handler, so that Lambda and the local server answer alike. The price: a value is never
 * decoded twice, so a decoded value whose `%` does not start a valid escape (`50%OFF`, sent as
 * `50%25OFF`) cannot be told from an undecodable one and is refused too.
 */
export function pathParameterProblem(value: string): string | undefined {
  if (!value.isWellFormed() || value.includes('\uFFFD')) {
    return 'Not valid UTF-8: the path holds an encoded surrogate or bytes that are not UTF-8';
  }
  if (value.includes('%')) {
    try {
      decodeURIComponent(value);
    } catch {
      return 'Malformed percent-encoding: each %XX escape must spell UTF-8 (send a literal % as %25)';
    }
  }
  return undefined;
}
