import type { MiddlewareObj } from '@middy/core';
import type { Context } from 'aws-lambda';
import { ErrorOut } from '../../contract/errors.ts';
import { describeRequirement, type ScopeRequirement, satisfies } from '../../domain/scopes.ts';
import { ForbiddenError, PaymentRequiredError, ServiceUnavailableError } from '../../kernel/errors.ts';
import type { PipelineStep } from '../answers.ts';
import type { HttpEvent } from '../http.ts';
import { callerOf, stateOf } from '../request-state.ts';
import { isWrite, secretScope } from '../route.ts';

/**
 * Steps 3 and 4 of the chain: the Tenant's account state, then the route's scope.
 * Suspended → 503 for everything; read-only subscription → 402 for writes, reads still work.
 */
export function checkAccess(): MiddlewareObj<HttpEvent, unknown, Error, Context> {
  return {
    before: async (request) => {
      const state = stateOf(request.context);
      const { tenant, apiKey } = callerOf(state);
      if (tenant.suspended) throw new ServiceUnavailableError('This account is suspended');
      if (isWrite(state.route) && tenant.subscription === 'read_only') {
        throw new PaymentRequiredError(
          'The subscription is read-only: writes are disabled until it is renewed',
        );
      }
      const scope = secretScope(state.route);
      if (scope && !satisfies(apiKey.scopes, scope)) {
        throw new ForbiddenError(`This API key lacks the scope ${describeRequirement(scope)}`);
      }
    },
  };
}

/** What steps 3 and 4 can answer: 503 for all, 402 for writes, 403 naming the missing scope. */
export const checkAccessStep: PipelineStep = {
  name: 'checkAccess',
  answers: ({ route }) => ({
    ...(isWrite(route)
      ? { 402: { description: 'The subscription is read-only: writes are disabled', schema: ErrorOut } }
      : {}),
    ...(secretScope(route)
      ? {
          403: {
            description: `The key lacks the scope ${describeRequirement(secretScope(route) as ScopeRequirement)}`,
            schema: ErrorOut,
          },
        }
      : {}),
    503: { description: 'The account is suspended', schema: ErrorOut },
  }),
};
