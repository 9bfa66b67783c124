/**
 * Decimal values (prices, bathrooms) travel as strings on the API and are never converted to
 * binary floats. These helpers validate and normalise them.
 */

/** The pattern the API publishes for decimal strings, verbatim. */
export const DECIMAL_PATTERN = /^(?!^[-+.]*$)[+-]?0*\d*\.?\d*$/;

/** Canonical form: no plus sign, no superfluous leading zeros, "0." before a bare fraction. */
export function normalizeDecimal(value: string): string {
  let s = value.trim();
  let sign = '';
  if (s.startsWith('+')) s = s.slice(1);
  else if (s.startsWith('-')) {
    sign = '-';
    s = s.slice(1);
  }
  let [whole = '', fraction] = s.split('.');
  whole = whole.replace(/^0+(?=\d)/, '') || '0';
  if (fraction === '') fraction = undefined;
  const body = fraction === undefined ? whole : `${whole}.${fraction}`;
  return /^0(\.0*)?$/.test(body) ? body : sign + body;
}

export function isNegativeDecimal(value: string): boolean {
  return normalizeDecimal(value).startsWith('-');
}

/** Digits after the decimal point. */
export function fractionDigits(value: string): number {
  return normalizeDecimal(value).split('.')[1]?.length ?? 0;
}

/** Digits before the decimal point (without sign). */
export function integerDigits(value: string): number {
  return normalizeDecimal(value).replace('-', '').split('.')[0]?.length ?? 0;
}

/** Compares two decimal strings exactly (for criteria bounds and matching). */
export function compareDecimals(a: string, b: string): number {
  const [na, nb] = [normalizeDecimal(a), normalizeDecimal(b)];
  const negA = na.startsWith('-');
  const negB = nb.startsWith('-');
  if (negA !== negB) return negA ? -1 : 1;
  const [ia = '0', fa = ''] = na.replace('-', '').split('.');
  const [ib = '0', fb = ''] = nb.replace('-', '').split('.');
  const width = Math.max(fa.length, fb.length);
  const la = ia + fa.padEnd(width, '0');
  const lb = ib + fb.padEnd(width, '0');
  const magnitude = la.length !== lb.length ? la.length - lb.length : la < lb ? -1 : la > lb ? 1 : 0;
  const sign = Math.sign(magnitude);
  return negA ? -sign : sign;
}
