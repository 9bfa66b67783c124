import * as z from 'zod';
import {
  DECIMAL_PATTERN,
  fractionDigits,
  integerDigits,
  isNegativeDecimal,
  normalizeDecimal,
} from '../../domain/decimal.ts';

/**
 * Building blocks shared by the operations' schemas. zod is the single source of request and
 * response types: handlers use `z.infer` of these, the OpenAPI document is generated from them.
 */

export const Uuid = z.uuid({ message: 'Must be a UUID' });

/** Checked first, aborting: the interface's pattern backtracks cubically on long input ("000…0x"). */
const MAX_DECIMAL_LENGTH = 64;

/** A decimal string per interface §2.1, at least 0, normalised ("+0100.50" → "100.50"). */
export function nonNegativeDecimal(options: { maxIntegerDigits: number; maxFractionDigits: number }) {
  return z
    .string()
    .refine((v) => v.length <= MAX_DECIMAL_LENGTH, {
      message: `At most ${MAX_DECIMAL_LENGTH} characters`,
      abort: true,
    })
    .regex(DECIMAL_PATTERN, 'Must be a decimal string such as "250000.00"')
    .refine((v) => !isNegativeDecimal(v), 'Must be at least 0')
    .refine(
      (v) => integerDigits(v) <= options.maxIntegerDigits,
      `At most ${options.maxIntegerDigits} digits before the point`,
    )
    .refine(
      (v) => fractionDigits(v) <= options.maxFractionDigits,
      `At most ${options.maxFractionDigits} digits after the point`,
    )
    .transform(normalizeDecimal);
}

export const Money = nonNegativeDecimal({ maxIntegerDigits: 13, maxFractionDigits: 2 });

export const CurrencyCode = z
  .string()
  .regex(/^[A-Za-z]{3}$/, 'Must be a 3-letter ISO 4217 code such as "EUR"')
  .transform((v) => v.toUpperCase());

/** A date-time that must say which offset it is in; it is compared in UTC. */
export const OffsetDateTime = z
  .string()
  .regex(
    /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/i,
    'Must be an ISO 8601 date-time with a UTC offset (Z or +00:00)',
  )
  .refine((v) => !Number.isNaN(Date.parse(v)), 'Not a valid date-time')
  .transform((v) => new Date(v).toISOString());

/** Query booleans arrive as text. */
export const QueryBoolean = z
  .enum(['true', 'false', '1', '0'], { message: 'Must be true or false' })
  .transform((v) => v === 'true' || v === '1');

/** `limit`, `cursor` and `updated_since` of every cursor-paged list (interface §4.4). */
export const PageQuery = z.object({
  limit: z.coerce
    .number({ message: 'Must be an integer' })
    .int('Must be an integer')
    .min(1)
    .max(200)
    .default(50),
  cursor: z.string().min(1).optional(),
  updated_since: OffsetDateTime.optional(),
});

export function pageOf<T extends z.ZodType>(item: T) {
  return z.object({ data: z.array(item), next_cursor: z.string().nullable() });
}

export const ErrorOut = z.object({ detail: z.string() });
export const ValidationErrorOut = z.object({
  detail: z.array(
    z.object({ loc: z.array(z.union([z.string(), z.number()])), msg: z.string(), type: z.string() }),
  ),
});
