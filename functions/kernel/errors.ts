/**
 * Typed errors. Domain and data code throws these; `toHttpResponse` in middleware/error-handler.ts
 * is the one place that turns them into status codes.
 */
export interface ValidationIssue {
  /** Where the bad value is, e.g. ["body", "price"] or ["query", "limit"]. */
  loc: (string | number)[];
  msg: string;
  type: string;
}

export abstract class ServiceError extends Error {
  abstract readonly statusCode: number;
  /** Extra response headers the status needs (WWW-Authenticate, Retry-After...). */
  headers: Record<string, string> = {};
}

export class RequestValidationError extends ServiceError {
  readonly statusCode = 422;
  readonly issues: ValidationIssue[];
  constructor(issues: ValidationIssue[]) {
    super(issues.map((i) => `${i.loc.join('.')}: ${i.msg}`).join('; '));
    this.issues = issues;
  }
  static single(loc: (string | number)[], msg: string, type = 'value_error'): RequestValidationError {
    return new RequestValidationError([{ loc, msg, type }]);
  }
}

export class BadRequestError extends ServiceError {
  readonly statusCode = 400;
}

export class UnauthorizedError extends ServiceError {
  readonly statusCode = 401;
  override headers = { 'WWW-Authenticate': 'Bearer' };
}

export class PaymentRequiredError extends ServiceError {
  readonly statusCode = 402;
}

export class ForbiddenError extends ServiceError {
  readonly statusCode = 403;
}

export class NotFoundError extends ServiceError {
  readonly statusCode = 404;
}

export class ConflictError extends ServiceError {
  readonly statusCode = 409;
}

export class PayloadTooLargeError extends ServiceError {
  readonly statusCode = 413;
}

export class RateLimitedError extends ServiceError {
  readonly statusCode = 429;
  constructor(message: string, headers: Record<string, string>) {
    super(message);
    this.headers = headers;
  }
}

export class ServiceUnavailableError extends ServiceError {
  readonly statusCode = 503;
}
