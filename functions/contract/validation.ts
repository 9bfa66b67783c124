import type * as z from 'zod/mini';
import type { ValidationIssue } from '../kernel/errors.ts';

function valueAt(root: unknown, path: PropertyKey[]): unknown {
  let current = root;
  for (const key of path) {
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Record<PropertyKey, unknown>)[key];
  }
  return current;
}

/** zod issues → `{loc, msg, type}` items; a value that is absent is reported as `missing`. */
export function toValidationIssues(
  location: 'body' | 'query' | 'path',
  error: z.core.$ZodError,
  input: unknown,
): ValidationIssue[] {
  return error.issues.map((issue) => {
    const path = issue.path.map((p) => (typeof p === 'number' ? p : String(p)));
    // zod reports an absent enum as invalid_value and an absent field as invalid_type.
    const absent =
      (issue.code === 'invalid_type' || issue.code === 'invalid_value') &&
      valueAt(input, issue.path) === undefined;
    return {
      loc: [location, ...path],
      msg: absent ? 'Field required' : issue.message,
      type: absent ? 'missing' : issue.code,
    };
  });
}
