import type { MiddlewareObj } from '@middy/core';
import type { Context } from 'aws-lambda';
import type * as z from 'zod/mini';
import { PayloadTooLargeError, RequestValidationError, type ValidationIssue } from '../../kernel/errors.ts';
import { type HttpEvent, pathParameterProblem } from '../http.ts';
import { stateOf } from '../request-state.ts';
import { operationParameters } from '../route.ts';
import '../../kernel/zod.ts';
import { ErrorOut, ValidationErrorOut } from '../../contract/errors.ts';
import { toValidationIssues } from '../../contract/validation.ts';
import type { PipelineStep } from '../answers.ts';

export const MAX_BODY_BYTES = 1024 * 1024;

export interface InputSchemas {
  params?: z.ZodMiniType;
  query?: z.ZodMiniType;
  body?: z.ZodMiniType;
}

function parse<S extends z.ZodMiniType>(
  location: 'body' | 'query' | 'path',
  schema: S,
  input: unknown,
  issues: ValidationIssue[],
) {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  issues.push(...toValidationIssues(location, result.error, input));
  return undefined;
}

function readBody(event: HttpEvent): unknown {
  if (event.body === undefined || event.body === null || event.body === '') return undefined;
  const raw = event.isBase64Encoded ? Buffer.from(event.body, 'base64') : Buffer.from(event.body, 'utf8');
  if (raw.byteLength > MAX_BODY_BYTES) throw new PayloadTooLargeError('The request body is larger than 1 MB');
  try {
    return JSON.parse(raw.toString('utf8'));
  } catch (error) {
    throw RequestValidationError.single(
      ['body'],
      `Malformed JSON: ${(error as Error).message}`,
      'json_invalid',
    );
  }
}

/**
 * Path parameters that cannot be read as text (malformed or undecodable percent-encoding, a lone
 * surrogate): one issue each. The schema does not see them, so its own message cannot hide this one.
 */
function encodingIssues(pathParameters: Record<string, string | undefined>): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  for (const [name, value] of Object.entries(pathParameters)) {
    const problem = value === undefined ? undefined : pathParameterProblem(value);
    if (problem) issues.push({ loc: ['path', name], msg: problem, type: 'encoding_invalid' });
  }
  return issues;
}

/** Step 7: path, query and body through the operation's zod schemas → 422 with every issue. */
export function validateInput(schemas: InputSchemas): MiddlewareObj<HttpEvent, unknown, Error, Context> {
  return {
    before: async (request) => {
      const { event } = request;
      const issues: ValidationIssue[] = [];
      // An operation that takes no body ignores one (as HTTP servers do a GET's): it is neither
      // parsed nor refused, so its documented answers are the same with or without one.
      const body = schemas.body ? readBody(event) : undefined;
      // The handler answered 404 already when the path is not the row's (operation.ts).
      const pathParameters =
        operationParameters(stateOf(request.context).route, event.routeKey, event.pathParameters ?? {}) ?? {};
      const badEncodings = encodingIssues(pathParameters);
      issues.push(...badEncodings);
      const params =
        schemas.params && badEncodings.length === 0
          ? parse('path', schemas.params, pathParameters, issues)
          : {};
      const query = schemas.query
        ? parse('query', schemas.query, event.queryStringParameters ?? {}, issues)
        : {};
      let parsedBody: unknown;
      if (schemas.body) {
        if (body === undefined) issues.push({ loc: ['body'], msg: 'Field required', type: 'missing' });
        else parsedBody = parse('body', schemas.body, body, issues);
      }
      if (issues.length > 0) throw new RequestValidationError(issues);
      stateOf(request.context).input = { params, query, body: parsedBody };
    },
  };
}

/** What step 7 can answer: 413 for a body over 1 MB, 422 for input its schemas refuse. */
export const validateInputStep: PipelineStep = {
  name: 'validateInput',
  answers: ({ hasParams, hasQuery, hasBody }) => ({
    ...(hasBody ? { 413: { description: 'The request body is larger than 1 MB', schema: ErrorOut } } : {}),
    ...(hasParams || hasQuery || hasBody
      ? {
          422: {
            description: `The ${[hasParams && 'path', hasQuery && 'query', hasBody && 'body'].filter(Boolean).join(', ')} failed validation: one item per problem`,
            schema: ValidationErrorOut,
          },
        }
      : {}),
  }),
};
