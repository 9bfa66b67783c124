import type { MiddlewareObj } from '@middy/core';
import type { Context } from 'aws-lambda';
import { InternalErrorOut } from '../../contract/errors.ts';
import { RequestValidationError, ServiceError } from '../../kernel/errors.ts';
import { logger } from '../../kernel/logger.ts';
import type { PipelineStep } from '../answers.ts';
import { type HttpEvent, type HttpResponse, jsonResponse } from '../http.ts';
import { stateOf } from '../request-state.ts';

/**
 * The one place that turns errors into HTTP answers. Typed errors carry their status; anything
 * else is a bug: logged with its stack, answered 500 with the request id and nothing else.
 */
export function toHttpResponse(error: unknown, requestId: string): HttpResponse {
  if (error instanceof RequestValidationError) {
    return jsonResponse(422, { detail: error.issues }, error.headers);
  }
  if (error instanceof ServiceError) {
    return jsonResponse(error.statusCode, { detail: error.message }, error.headers);
  }
  logger.error('Unhandled error', { requestId, error: error as Error });
  return jsonResponse(500, { detail: 'Internal error', request_id: requestId });
}

/** Step 9 (last): registered first so that its onError runs after every other step's. */
export function errorHandler(): MiddlewareObj<HttpEvent, unknown, Error, Context> {
  return {
    onError: async (request) => {
      const requestId = stateOf(request.context).requestId;
      request.response = toHttpResponse(request.error, requestId);
    },
  };
}

/**
 * What the chain's frame answers: 500 for a bug (with the request id), and `X-Request-Id` on every
 * answer (operation.ts `finish`, which runs for every answer the function produces).
 */
export const errorHandlerStep: PipelineStep = {
  name: 'errorHandler',
  answers: () => ({
    500: { description: 'A bug: quote request_id when reporting it', schema: InternalErrorOut },
  }),
  everyAnswerHeaders: () => ({
    'X-Request-Id': {
      description: 'The id of this request in the service logs',
      schema: { type: 'string' },
    },
  }),
};
