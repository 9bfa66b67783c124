import * as z from 'zod/mini';
import { AMENITY_CODES, isAmenityCode } from '../domain/amenities.ts';
import {
  DECIMAL_PATTERN,
  fractionDigits,
  integerDigits,
  isNegativeDecimal,
  normalizeDecimal,
} from '../domain/decimal.ts';
import { coercedNumber } from '../kernel/zod.ts';

/**
 * Building blocks shared by the operations' schemas. zod is the single source of request and
 * response types: handlers use `z.infer` of these, the OpenAPI document is generated from them.
 * It is `zod/mini` (functions and `.check()` instead of methods), whose unused parts a bundler can
 * drop: about 34 KB of a handler bundle instead of about 92 for the classic API.
 */

export const Uuid = z.uuid({ message: 'Must be a UUID' });

/**
 * A JSON Schema pattern for text that is trimmed, then must be 1–`max` characters: the document
 * states the length of what is left after trimming, so it neither refuses the surrounding
 * whitespace the API accepts nor accepts blank text the API refuses. `\s` is what `trim()` removes.
 */
export function trimmedLengthPattern(max: number): string {
  return max < 2 ? `^\\s*\\S?\\s*$` : `^\\s*\\S(?:[\\s\\S]{0,${max - 2}}\\S)?\\s*$`;
}

/**
 * What the document says of a trimmed string, replacing the lengths zod derives from the checks
 * (which it would state of the untrimmed input).
 */
export function trimmedInputSchema(pattern: string) {
  return z.meta({ pattern, minLength: undefined, maxLength: undefined });
}

/**
 * JSON Schema's `if`/`then` for `z.meta`: a rule across fields the document states (zod's checks
 * cannot be translated). Built from entries because an object literal with `then` reads as a thenable.
 */
export function jsonSchemaIfThen(condition: object, consequence: object): Record<string, object> {
  return Object.fromEntries([
    ['if', condition],
    ['then', consequence],
  ]);
}

/** Text that is trimmed, then must be 1–`max` characters; `emptyMessage` replaces zod's "Too small". */
export function trimmedText(max: number, emptyMessage?: string) {
  return z
    .string()
    .check(
      z.trim(),
      z.minLength(1, emptyMessage),
      z.maxLength(max),
      trimmedInputSchema(trimmedLengthPattern(max)),
    );
}

/** A JSON integer from `min` to `max`. */
export function integerBetween(min: number, max: number) {
  return z.number().check(z.int('Must be an integer'), z.gte(min), z.lte(max));
}

/** An array read as a set of at most `max` items: duplicates are dropped, the first occurrence kept. */
export function setOf<T extends z.ZodMiniType>(item: T, max: number) {
  return z.pipe(
    z.array(item).check(z.maxLength(max)),
    z.transform((items: z.output<T>[]) => [...new Set(items)]),
  );
}

/** A code of the amenity catalogue (domain/amenities.ts). */
export const AmenityCode = z
  .string()
  .check(
    z.refine(isAmenityCode, { message: `Unknown amenity code; known codes: ${AMENITY_CODES.join(', ')}` }),
  );

/** Checked first, aborting: the interface's pattern backtracks cubically on long input ("000…0x"). */
const MAX_DECIMAL_LENGTH = 64;

/** One of the API's decimal strings, at least 0, normalised ("+0100.50" → "100.50"). */
export function nonNegativeDecimal(options: { maxIntegerDigits: number; maxFractionDigits: number }) {
  return z.pipe(
    z.string().check(
      z.refine((v) => v.length <= MAX_DECIMAL_LENGTH, {
        message: `At most ${MAX_DECIMAL_LENGTH} characters`,
        abort: true,
      }),
      z.regex(DECIMAL_PATTERN, 'Must be a decimal string such as "250000.00"'),
      z.refine((v) => !isNegativeDecimal(v), 'Must be at least 0'),
      z.refine(
        (v) => integerDigits(v) <= options.maxIntegerDigits,
        `At most ${options.maxIntegerDigits} digits before the point`,
      ),
      z.refine(
        (v) => fractionDigits(v) <= options.maxFractionDigits,
        `At most ${options.maxFractionDigits} digits after the point`,
      ),
    ),
    z.transform(normalizeDecimal),
  );
}

export const Money = nonNegativeDecimal({ maxIntegerDigits: 13, maxFractionDigits: 2 });

export const CurrencyCode = z.pipe(
  z.string().check(z.regex(/^[A-Za-z]{3}$/, 'Must be a 3-letter ISO 4217 code such as "EUR"')),
  z.transform((v) => v.toUpperCase()),
);

/** A date-time that must say which offset it is in; it is compared in UTC. */
export const OffsetDateTime = z.pipe(
  z.string().check(
    z.regex(
      /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/i,
      'Must be an ISO 8601 date-time with a UTC offset (Z or +00:00)',
    ),
    z.refine((v) => !Number.isNaN(Date.parse(v)), 'Not a valid date-time'),
    // What a client should send: an RFC 3339 date-time (the API also takes one without seconds).
    z.meta({ format: 'date-time' }),
  ),
  z.transform((v) => new Date(v).toISOString()),
);

/** Query booleans arrive as text. */
export const QueryBoolean = z.pipe(
  z.enum(['true', 'false', '1', '0'], { message: 'Must be true or false' }),
  z.transform((v) => v === 'true' || v === '1'),
);

/** `limit`, `cursor` and `updated_since` of every cursor-paged list (pagination: docs/getting-started.md). */
export const PageQuery = z.object({
  limit: z._default(
    coercedNumber({ message: 'Must be an integer' }).check(z.int('Must be an integer'), z.gte(1), z.lte(200)),
    50,
  ),
  cursor: z.optional(z.string().check(z.minLength(1))),
  updated_since: z.optional(OffsetDateTime),
});

function newPage<T extends z.ZodMiniType>(item: T) {
  return z.object({ data: z.array(item), next_cursor: z.nullable(z.string()) });
}

/** One page schema per item schema, whoever asks: the OpenAPI document names each page once. */
const pages = new WeakMap<z.ZodMiniType, z.ZodMiniType>();

/** A cursor page of `item`: `{data, next_cursor}`, next_cursor null on the last page. */
export function pageOf<T extends z.ZodMiniType>(item: T): ReturnType<typeof newPage<T>> {
  let page = pages.get(item);
  if (!page) {
    page = newPage(item);
    pages.set(item, page);
  }
  return page as ReturnType<typeof newPage<T>>;
}

/** The error bodies are the pipeline's (pipeline/answers.ts): one schema object each, one component. */
export { ErrorOut, ValidationErrorOut } from './errors.ts';

/**
 * A partial edit must name something to change: `{}` (or only unknown fields, which are dropped)
 * → 422 at ["body"]. An empty edit would write nothing and only answer the record, so it is
 * refused for every key. The document states the rule as `minProperties: 1`.
 */
export function nonEmptyEdit<T extends z.ZodMiniObject>(schema: T): T {
  const fields = Object.keys(schema.shape);
  return schema.check(
    z.meta({ minProperties: 1 }),
    z.refine((value: object) => Object.keys(value).length > 0, {
      message: `Send at least one field to change: ${fields.join(', ')}`,
      abort: true,
    }),
  );
}

/** The fields of `sent` that are present (null included): what a write echoes back. */
export function presentFields<T extends object, K extends keyof T>(
  sent: T,
  fields: readonly K[],
): Partial<Pick<T, K>> {
  const echoed: Partial<Pick<T, K>> = {};
  for (const field of fields) if (sent[field] !== undefined) echoed[field] = sent[field];
  return echoed;
}
