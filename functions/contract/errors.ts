import * as z from 'zod/mini';

/** The error bodies every operation may answer (the pipeline's answers, functions/pipeline/answers.ts). */

/** `{detail}`: every error answer but validation and 500. */
export const ErrorOut = z.object({ detail: z.string() });

/** 422: one item per problem, `loc` saying where (["body", "price"], ["query", "limit"]). */
export const ValidationErrorOut = z.object({
  detail: z.array(
    z.object({ loc: z.array(z.union([z.string(), z.number()])), msg: z.string(), type: z.string() }),
  ),
});

/** 500: a bug; the request id finds its log line. */
export const InternalErrorOut = z.object({ detail: z.string(), request_id: z.string() });
