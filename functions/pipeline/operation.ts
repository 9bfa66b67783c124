import { randomUUID } from 'node:crypto';
import middy, { type Request } from '@middy/core';
import type { Context } from 'aws-lambda';
import type * as z from 'zod/mini';
import { ErrorOut } from '../contract/errors.ts';
import { loadCursorSecret } from '../kernel/cursor-secret.ts';
import { type IdSource, randomIds } from '../kernel/ids.ts';
import { logger } from '../kernel/logger.ts';
import { flushMetrics } from '../kernel/metrics.ts';
import type { OperationId } from '../routes.ts';
import type { Caller } from '../services/caller.ts';
import type { OperationShape, PipelineStep, ResponseSpec } from './answers.ts';
import { type HttpEvent, type HttpResponse, jsonResponse } from './http.ts';
import { authenticate, authenticateStep } from './middleware/authenticate.ts';
import { checkAccess, checkAccessStep } from './middleware/check-access.ts';
import { errorHandler, errorHandlerStep } from './middleware/error-handler.ts';
import { idempotency, idempotencyStep } from './middleware/idempotency.ts';
import { rateLimit, rateLimitStep } from './middleware/rate-limit.ts';
import { siteAccess, siteAccessStep } from './middleware/site-access.ts';
import { siteRateLimit, siteRateLimitStep } from './middleware/site-rate-limit.ts';
import { validateInput, validateInputStep } from './middleware/validate-input.ts';
import { attachState, callerOf, type RequestState, type SiteRequest, stateOf } from './request-state.ts';
import { isPublishable, isWrite, NO_ROUTE_BODY, operationParameters, type RouteDefinition } from './route.ts';
import { registeredRoute } from './route-registry.ts';

type MiddyRequest = Request<HttpEvent, HttpResponse, Error, Context>;
type Infer<S> = S extends z.ZodMiniType ? z.infer<S> : Record<string, never>;

export type { ResponseSpec } from './answers.ts';

export interface OperationSpec<P, Q, B> {
  params?: P;
  query?: Q;
  body?: B;
  responses: Record<number, ResponseSpec>;
}

export interface OperationInput<P, Q, B> {
  params: Infer<P>;
  query: Infer<Q>;
  body: Infer<B>;
  caller: Caller;
  requestId: string;
  /**
   * Where the ids of what the request creates come from: derived from its Idempotency-Key when it has
   * one, so that a retry after a crash finds what the first run created (functions/kernel/ids.ts).
   */
  ids: IdSource;
  /** Site routes only: the visitor and page (the admission's findings). */
  site?: SiteRequest | undefined;
}

export interface OperationResult {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}

export interface Operation {
  /** The operation's row of the route table (registered: see functions/pipeline/route-registry.ts). */
  readonly route: RouteDefinition;
  /** The chain this operation runs, as documentation (secret-key or site chain). */
  readonly steps: readonly PipelineStep[];
  spec: OperationSpec<z.ZodMiniType | undefined, z.ZodMiniType | undefined, z.ZodMiniType | undefined>;
  handler: (event: HttpEvent, context: Context) => Promise<HttpResponse>;
}

/**
 * The gateway in front of the function (API Gateway, or the local server) refuses an oversized body
 * itself, before any step runs and whatever the method (a client may send a body with a GET): such a
 * 413 carries none of the chain's headers.
 */
const gatewayStep: PipelineStep = {
  name: 'gateway',
  answers: () => ({
    413: { description: 'The gateway refused a body over its size limit', schema: ErrorOut },
  }),
};

type ChainSpec = OperationSpec<z.ZodMiniType, z.ZodMiniType, z.ZodMiniType>;
type Middleware = ReturnType<typeof errorHandler>;

/**
 * One link of a request chain: the middleware that runs and its declaration (what it answers, the
 * headers it sets). A chain is one list of links, from which both the real middy chain
 * ({@link defineOperation}) and its documentation (the OpenAPI's answers) are made, so the two
 * cannot disagree on the order.
 */
interface ChainLink {
  step: PipelineStep;
  middleware: (spec: ChainSpec) => Middleware;
}

/** The chain of a secret-key route, in the order it runs. */
const secretKeyChain: readonly ChainLink[] = [
  { step: errorHandlerStep, middleware: () => errorHandler() },
  { step: authenticateStep, middleware: () => authenticate() },
  { step: checkAccessStep, middleware: () => checkAccess() },
  { step: rateLimitStep, middleware: () => rateLimit() },
  { step: idempotencyStep, middleware: () => idempotency() },
  { step: validateInputStep, middleware: (spec) => validateInput(spec) },
];

/**
 * The chain of a site route (publishable key): admission (key, origin rules, CORS, tenant state)
 * replaces authenticate and the scope check; the site budgets replace the key's. A site write honours
 * Idempotency-Key as every write does, scoped to the publishable key and the visitor.
 */
const siteChain: readonly ChainLink[] = [
  { step: errorHandlerStep, middleware: () => errorHandler() },
  { step: siteAccessStep, middleware: () => siteAccess() },
  { step: siteRateLimitStep, middleware: () => siteRateLimit() },
  { step: idempotencyStep, middleware: () => idempotency() },
  { step: validateInputStep, middleware: (spec) => validateInput(spec) },
];

/**
 * The chain as documentation, in the order it runs: the gateway's own answer, then each link's step.
 * The OpenAPI generator merges these steps' answers into every operation (answers.ts
 * `documentedResponses`).
 */
export const pipelineSteps: readonly PipelineStep[] = [gatewayStep, ...secretKeyChain.map((l) => l.step)];

/** The site chain as documentation (see {@link pipelineSteps}). */
export const sitePipelineSteps: readonly PipelineStep[] = [gatewayStep, ...siteChain.map((l) => l.step)];

/**
 * Site answers (docs/site-api.md): a successful GET is cached at the edge for a minute and served
 * stale for five more while CloudFront refreshes it; anything else is never cached.
 */
export const SITE_CACHE_CONTROL = 'public, s-maxage=60, stale-while-revalidate=300';

function siteCacheControl(route: RouteDefinition, status: number): string {
  return !isWrite(route) && status >= 200 && status < 300 ? SITE_CACHE_CONTROL : 'no-store';
}

/** The route row and input shape of an operation, as the pipeline's declarations need them. */
export function shapeOf(operation: Operation): OperationShape {
  const { spec, route } = operation;
  return {
    route,
    hasParams: spec.params !== undefined || route.path.includes('{'),
    hasQuery: spec.query !== undefined,
    hasBody: spec.body !== undefined,
  };
}

/**
 * Runs once per request after everything else: headers every answer carries, the key's fate, the log
 * line (with the request id an integrator quotes from `X-Request-Id`, and the Lambda context the
 * logger holds), and the invocation's business metrics.
 */
async function finish(state: RequestState, response: HttpResponse): Promise<void> {
  if (state.idempotency) {
    if (response.statusCode >= 500) await state.idempotency.release();
    else await state.idempotency.complete(response);
  }
  const cacheControl = isPublishable(state.route)
    ? siteCacheControl(state.route, response.statusCode)
    : undefined;
  // A cacheable site answer is served from the edge to every visitor: one visitor's budget headers
  // must not ride along to the others. 429s and uncached answers keep them.
  const perVisitor = cacheControl === SITE_CACHE_CONTROL ? {} : state.rateLimitHeaders;
  Object.assign(response.headers, perVisitor, { 'X-Request-Id': state.requestId });
  if (cacheControl !== undefined) {
    Object.assign(response.headers, state.corsHeaders, { Vary: 'Origin', 'Cache-Control': cacheControl });
  }
  logger.info('request', {
    requestId: state.requestId,
    operation: state.route.operationId,
    status: response.statusCode,
    durationMs: Date.now() - state.startedAt,
    tenantId: state.caller?.tenant.tenantId,
    apiKeyId: state.caller?.apiKey.id,
    replayed: state.replayed ?? false,
  });
  flushMetrics();
}

/** True when the query schema declares `cursor`: the operation reads and signs page cursors. */
function pagesWithCursor(query: z.ZodMiniType | undefined): boolean {
  const shape = (query as { _zod?: { def?: { shape?: object } } } | undefined)?._zod?.def?.shape;
  return shape !== undefined && 'cursor' in shape;
}

/**
 * Wraps an operation in the shared chain: authenticate → tenant state and scope → rate limit →
 * idempotency → validation → handler, with errors mapped in one place. The handler only sees
 * validated input and the caller; it never builds an HTTP error by hand.
 */
export function defineOperation<
  P extends z.ZodMiniType | undefined = undefined,
  Q extends z.ZodMiniType | undefined = undefined,
  B extends z.ZodMiniType | undefined = undefined,
>(
  operationId: OperationId,
  spec: OperationSpec<P, Q, B>,
  run: (input: OperationInput<P, Q, B>) => Promise<OperationResult>,
): Operation {
  // The row is looked up on first use, not now: a deployed function's generated entry registers its
  // one row after this module has loaded (lib/bundling.ts), and never loads the route table.
  let route: RouteDefinition | undefined;
  const routeOf = (): RouteDefinition => {
    route ??= registeredRoute(operationId);
    return route;
  };
  const paged = pagesWithCursor(spec.query);
  const core = async (_event: HttpEvent, context: Context): Promise<HttpResponse> => {
    // The cursor key (Secrets Manager in Lambda) is resolved once per container, and only by the
    // functions that page: the others never load the Secrets Manager client.
    if (paged) await loadCursorSecret();
    const state = stateOf(context);
    const input = state.input as { params: Infer<P>; query: Infer<Q>; body: Infer<B> };
    const result = await run({
      ...input,
      caller: callerOf(state),
      requestId: state.requestId,
      ids: state.idempotency?.ids ?? randomIds(),
      site: state.site,
    });
    return jsonResponse(result.status, result.body, result.headers);
  };
  // middy's plugin hooks receive the request at run time, though its types declare no argument.
  const lifecycle = {
    requestStart: (request: MiddyRequest) => {
      const requestId = request.event.requestContext?.requestId || randomUUID();
      attachState(request.context, {
        route: routeOf(),
        requestId,
        startedAt: Date.now(),
        rateLimitHeaders: {},
      });
      // Every line logged during the request carries the Lambda context and the request id.
      logger.addContext(request.context);
      logger.appendKeys({ requestId });
    },
    requestEnd: async (request: MiddyRequest) => {
      request.response ??= jsonResponse(500, { detail: 'Internal error' });
      const response = request.response;
      response.headers ??= {};
      try {
        await finish(stateOf(request.context), response);
      } finally {
        logger.resetKeys();
      }
    },
  } as unknown as Parameters<typeof middy>[1];
  // The chain depends on the row (site routes take a publishable key), so it is built on the first
  // request, once the row is registered.
  let chain: ((event: HttpEvent, context: Context) => Promise<HttpResponse>) | undefined;
  const chainFor = (row: RouteDefinition) => {
    const links = isPublishable(row) ? siteChain : secretKeyChain;
    const built = links.reduce(
      (chain, link) => chain.use(link.middleware(spec as ChainSpec)),
      middy<HttpEvent, HttpResponse, Error, Context>(core, lifecycle),
    );
    return built as unknown as (event: HttpEvent, context: Context) => Promise<HttpResponse>;
  };
  return {
    get route() {
      return routeOf();
    },
    get steps() {
      return isPublishable(routeOf()) ? sitePipelineSteps : pipelineSteps;
    },
    spec,
    handler: (event, context) => {
      // A route key matches more than a row whose variable has literal text around it (API Gateway
      // takes whole segments only): the rest is answered as the gateway and the local server answer
      // a path no route matches, before any step runs.
      if (!operationParameters(routeOf(), event.routeKey, event.pathParameters ?? {})) {
        return Promise.resolve(jsonResponse(404, NO_ROUTE_BODY));
      }
      chain ??= chainFor(routeOf());
      return chain(event, context);
    },
  };
}
