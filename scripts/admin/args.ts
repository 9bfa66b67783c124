/** `--flag value`, `--flag=value` and bare boolean flags (`--admin`). */
export type Flags = Map<string, string | true>;

export function parseArgs(argv: string[]): { words: string[]; flags: Flags } {
  const words: string[] = [];
  const flags: Flags = new Map();
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    if (!arg.startsWith('--')) {
      words.push(arg);
      continue;
    }
    const eq = arg.indexOf('=');
    if (eq > 0) {
      flags.set(arg.slice(2, eq), arg.slice(eq + 1));
      continue;
    }
    const next = argv[i + 1];
    if (next !== undefined && !next.startsWith('--')) {
      flags.set(arg.slice(2), next);
      i++;
    } else {
      flags.set(arg.slice(2), true);
    }
  }
  return { words, flags };
}

export class UsageError extends Error {}

export function required(flags: Flags, name: string): string {
  const value = flags.get(name);
  if (value === undefined || value === true || value === '') throw new UsageError(`--${name} is required`);
  return value;
}

export function optional(flags: Flags, name: string): string | undefined {
  const value = flags.get(name);
  if (value === true) throw new UsageError(`--${name} needs a value`);
  return value;
}

export function booleanFlag(flags: Flags, name: string): boolean | undefined {
  const value = flags.get(name);
  if (value === undefined) return undefined;
  if (value === true || value === 'true') return true;
  if (value === 'false') return false;
  throw new UsageError(`--${name} must be true or false`);
}

export function integerFlag(flags: Flags, name: string, min: number): number | undefined {
  const value = optional(flags, name);
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < min)
    throw new UsageError(`--${name} must be an integer of at least ${min}`);
  return n;
}

export function oneOf<T extends string>(flags: Flags, name: string, allowed: readonly T[]): T | undefined {
  const value = optional(flags, name);
  if (value === undefined) return undefined;
  if (!(allowed as readonly string[]).includes(value))
    throw new UsageError(`--${name} must be one of: ${allowed.join(', ')}`);
  return value as T;
}

export function decimalFlag(flags: Flags, name: string): number | undefined {
  const value = optional(flags, name);
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!/^\d+(\.\d+)?$/.test(value) || !Number.isFinite(n))
    throw new UsageError(`--${name} must be a number of at least 0`);
  return n;
}
