/**
 * A port is bound explicitly: the local stack and the tests bind their adapters, and Lambda builds
 * the AWS adapter from its configuration. Nothing falls back to a local adapter because a variable
 * is missing: production mail must never land in the table's outbox.
 */
export interface Port<T> {
  /** The bound adapter; in Lambda with none bound, the AWS adapter (built on first use). */
  get(): T;
  /** Binds `adapter` (the local stack, tests); `undefined` unbinds it. */
  bind(adapter: T | undefined): void;
}

/** True inside Lambda, where the runtime sets the function name. */
export function runsInLambda(): boolean {
  return Boolean(process.env.AWS_LAMBDA_FUNCTION_NAME);
}

/**
 * A port named `name` whose AWS adapter `fromAws` builds (once per container). `fromAws` throws
 * when its configuration is missing, so a misconfigured function fails on first use, loudly.
 */
export function definePort<T>(name: string, fromAws: () => T): Port<T> {
  let bound: T | undefined;
  let aws: T | undefined;
  return {
    get() {
      if (bound !== undefined) return bound;
      if (!runsInLambda()) {
        throw new Error(
          `The ${name} port is not bound: outside Lambda the local stack or the test setup binds an adapter (scripts/local/adapters)`,
        );
      }
      aws ??= fromAws();
      return aws;
    },
    bind(adapter) {
      bound = adapter;
    },
  };
}

/** A configuration value an AWS adapter cannot run without; missing, it names what to set. */
export function required<V>(value: V | undefined, variable: string, port: string): V {
  if (value === undefined || value === '') {
    throw new Error(`${variable} is not set: the ${port} port cannot run in Lambda without it`);
  }
  return value;
}
