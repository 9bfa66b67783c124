import { en } from 'zod/locales';
import * as z from 'zod/mini';
import { _coercedNumber } from 'zod/v4/core';

/**
 * What every zod schema module of the functions shares (zod/mini, the tree-shakable API).
 *
 * zod/mini loads no locale: without this every issue would read "Invalid input". The modules that
 * parse (config.ts, middleware/validate-input.ts, ports/bedrock-json.ts, workers/ai.ts) and the
 * shared HTTP schemas import this file, so the English messages (the `msg` of a 422) are set before
 * anything is parsed.
 */
z.config(en());

/**
 * `z.coerce.number(params)`, built the way zod builds it. Reached through the `z.coerce` namespace it
 * would bring every coercion (string, boolean, bigint, date) into each bundle, about 1 KB.
 */
export function coercedNumber(params?: string | z.core.$ZodNumberParams): z.ZodMiniNumber<unknown> {
  return _coercedNumber(z.ZodMiniNumber, params);
}
