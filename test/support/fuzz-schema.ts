/**
 * A small JSON Schema → fast-check arbitrary builder, for the subset docs/openapi.json uses
 * (type, enum, const, anyOf, object properties/required, array items/min/maxItems, string
 * length/pattern/format, number bounds). Generated values are valid against the schema; the
 * service may still answer 4xx for reasons the schema cannot express (an unknown id, a rule).
 */
import fc from 'fast-check';

/** The part of JSON Schema the OpenAPI document uses. */
export interface JsonSchema {
  type?: string | string[];
  enum?: readonly unknown[];
  const?: unknown;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: boolean | JsonSchema;
  items?: JsonSchema;
  minItems?: number;
  maxItems?: number;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  format?: string;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  default?: unknown;
}

/** Values an id-shaped field may take from the test's own fixtures (so that valid requests hit real rows). */
export type IdPool = Record<string, readonly string[]>;

const UUID = fc.uuid({ version: 4 });
const ISO_DATE = fc
  .date({ min: new Date('2000-01-01T00:00:00Z'), max: new Date('2099-12-31T23:59:59Z'), noInvalidDate: true })
  .map((d) => d.toISOString());

/**
 * An arbitrary of values valid against `schema`. `field` is the property name (or parameter name)
 * the value is for: id-named fields draw from `ids` half of the time, so valid requests reach rows
 * that exist rather than only 404s and unknown-reference 422s.
 */
export function arbitraryFor(schema: JsonSchema, field = '', ids: IdPool = {}): fc.Arbitrary<unknown> {
  const pool = ids[field];
  const base = plainArbitrary(schema, ids);
  if (pool?.length) return fc.oneof(fc.constantFrom(...pool), base);
  return base;
}

function plainArbitrary(schema: JsonSchema, ids: IdPool): fc.Arbitrary<unknown> {
  if (schema.const !== undefined) return fc.constant(schema.const);
  if (schema.enum) return fc.constantFrom(...schema.enum);
  const alternatives = schema.anyOf ?? schema.oneOf;
  if (alternatives) return fc.oneof(...alternatives.map((s) => plainArbitrary(s, ids)));
  const type = Array.isArray(schema.type) ? schema.type : schema.type ? [schema.type] : [];
  if (type.length > 1) return fc.oneof(...type.map((t) => plainArbitrary({ ...schema, type: t }, ids)));
  switch (type[0]) {
    case 'null':
      return fc.constant(null);
    case 'boolean':
      return fc.boolean();
    case 'integer':
      return fc.integer({
        min: Math.ceil(schema.minimum ?? (schema.exclusiveMinimum ?? -1_000_001) + 1e-9),
        max: Math.floor(schema.maximum ?? (schema.exclusiveMaximum ?? 1_000_001) - 1e-9),
      });
    case 'number':
      return fc.double({
        min: schema.minimum ?? schema.exclusiveMinimum ?? -1e9,
        max: schema.maximum ?? schema.exclusiveMaximum ?? 1e9,
        minExcluded: schema.exclusiveMinimum !== undefined && schema.minimum === undefined,
        maxExcluded: schema.exclusiveMaximum !== undefined && schema.maximum === undefined,
        noNaN: true,
        noDefaultInfinity: true,
      });
    case 'string':
      return stringArbitrary(schema);
    case 'array': {
      const items = schema.items ? plainArbitrary(schema.items, ids) : fc.string();
      return fc.array(items, {
        minLength: schema.minItems ?? 0,
        maxLength: Math.min(schema.maxItems ?? 4, 4),
      });
    }
    case 'object':
      return objectArbitrary(schema, ids);
    default:
      return fc.jsonValue({ maxDepth: 2 });
  }
}

function objectArbitrary(schema: JsonSchema, ids: IdPool): fc.Arbitrary<unknown> {
  const properties = schema.properties ?? {};
  const record: Record<string, fc.Arbitrary<unknown>> = {};
  for (const [name, sub] of Object.entries(properties)) record[name] = arbitraryFor(sub, name, ids);
  const required = (schema.required ?? []).filter((k) => k in properties);
  const full = fc.record(record, { requiredKeys: required });
  // With many optional fields, almost every full draw carries an unknown reference (a 422): a
  // third of the draws keep to the required fields and a few optional ones so writes succeed too.
  const optionalKeys = Object.keys(properties).filter((k) => !required.includes(k));
  const few = fc
    .subarray(optionalKeys, { maxLength: Math.min(2, optionalKeys.length) })
    .chain((optional) =>
      fc.record(
        Object.fromEntries([...required, ...optional].map((k) => [k, record[k] as fc.Arbitrary<unknown>])),
      ),
    );
  return fc.oneof({ arbitrary: full, weight: 2 }, { arbitrary: few, weight: 1 });
}

function stringArbitrary(schema: JsonSchema): fc.Arbitrary<string> {
  const min = schema.minLength ?? 0;
  const max = Math.min(schema.maxLength ?? 40, Math.max(min, 40));
  let arb: fc.Arbitrary<string>;
  if (schema.format === 'uuid') arb = UUID;
  else if (schema.format === 'email') arb = fc.emailAddress();
  else if (schema.format === 'date-time') arb = ISO_DATE;
  else if (schema.format === 'uri' || schema.format === 'url') arb = fc.webUrl({ validSchemes: ['https'] });
  else if (schema.pattern && /T\\d\{2\}:/.test(schema.pattern)) arb = ISO_DATE;
  else if (schema.pattern) arb = patternArbitrary(schema.pattern);
  else arb = fc.string({ unit: 'grapheme', minLength: min, maxLength: max });
  // Patterns and formats say nothing about length: keep what the schema's bounds allow.
  return arb.filter((s) => s.length >= min && s.length <= (schema.maxLength ?? Number.POSITIVE_INFINITY));
}

/**
 * Strings matching `pattern`. fast-check cannot generate from lookarounds: those are dropped for
 * generation and the full pattern filters the result (`^(?!^[-+.]*$)[+-]?0*\d*\.?\d*$` for decimals).
 */
function patternArbitrary(pattern: string): fc.Arbitrary<string> {
  const regex = new RegExp(pattern);
  if (!/\(\?[=!<]/.test(pattern)) return fc.stringMatching(regex);
  return fc.stringMatching(new RegExp(withoutLookarounds(pattern))).filter((s) => regex.test(s));
}

/** `pattern` without its lookaround groups, nested parentheses and escapes included. */
function withoutLookarounds(pattern: string): string {
  let out = '';
  for (let i = 0; i < pattern.length; i++) {
    if (pattern[i] === '\\') {
      out += pattern.slice(i, i + 2);
      i++;
      continue;
    }
    if (!/^\(\?<?[=!]/.test(pattern.slice(i))) {
      out += pattern[i];
      continue;
    }
    // Skip to the parenthesis that closes this group.
    let depth = 0;
    for (; i < pattern.length; i++) {
      if (pattern[i] === '\\') i++;
      else if (pattern[i] === '[') {
        // A character class: its parentheses are literal.
        for (i++; i < pattern.length && pattern[i] !== ']'; i++) if (pattern[i] === '\\') i++;
      } else if (pattern[i] === '(') depth++;
      else if (pattern[i] === ')' && --depth === 0) break;
    }
  }
  return out;
}
