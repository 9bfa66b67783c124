/**
 * A port is bound explicitly, at start-up, and never chosen by whether a variable is set: each
 * generated Lambda entry (lib/bundling.ts) binds the AWS adapters of exactly the ports its row of
 * functions/routes.ts or functions/workers.ts declares in `uses`; the local stack, the bench and the
 * test setup bind the local adapters (scripts/local/adapters). A port nobody bound throws on use,
 * naming itself and the row: a function that reaches a port its row forgot fails loudly instead of
 * running without the grant, and production mail can never land in the table's outbox.
 */
export interface Port<T> {
  /** The bound adapter (an AWS one is built on this first call); throws when none is bound. */
  get(): T;
  /** Binds `adapter` (the local stack, tests); `undefined` unbinds it. */
  bind(adapter: T | undefined): void;
  /**
   * Binds the AWS adapter that `build` makes on the port's first use, once per container: a
   * function that never uses the port never builds it (nor loads its SDK client, which the adapter
   * imports on its first call). `build` throws when a setting is missing, so a misconfigured
   * function fails on first use, naming the setting, and builds again on the next.
   */
  bindAws(build: () => T): void;
}

/** What a port holds: nothing, an adapter, or the AWS adapter's builder until its first use. */
type Binding<T> = { adapter: T } | { build: () => T } | undefined;

/** The row this process serves, set by its generated Lambda entry: unbound ports name it. */
let lambdaRow: string | undefined;

/** The error of a port `name` nobody bound. */
function notBound(name: string): Error {
  return new Error(
    lambdaRow === undefined
      ? `The ${name} port is not bound: a Lambda entry binds the AWS adapters its row's uses declare ` +
          '(lib/bundling.ts); the local stack and the test setup bind local ones (scripts/local/adapters)'
      : `The ${name} port is not bound in ${lambdaRow}: its row does not declare the port in uses ` +
          '(functions/routes.ts, functions/workers.ts), so its AWS adapter is neither bound nor granted',
  );
}

/** A port named `name` (as its errors call it); bound by {@link Port.bind} or {@link Port.bindAws}. */
export function definePort<T>(name: string): Port<T> {
  let binding: Binding<T>;
  return {
    get() {
      if (binding === undefined) throw notBound(name);
      if ('build' in binding) binding = { adapter: binding.build() };
      return binding.adapter;
    },
    bind(adapter) {
      binding = adapter === undefined ? undefined : { adapter };
    },
    bindAws(build) {
      binding = { build };
    },
  };
}

/**
 * Called once by a generated Lambda entry, before the first request: names the row the function
 * serves (`createLead (functions/routes.ts)`) and runs `binders`, each port module's
 * `bindAwsAdapter` of a port the row's `uses` declare. Every other port stays unbound.
 */
export function bindAwsAdapters(row: string, binders: readonly (() => void)[]): void {
  lambdaRow = row;
  for (const bind of binders) bind();
}

/** A configuration value an AWS adapter cannot run without; missing, it names what to set. */
export function required<V>(value: V | undefined, variable: string, port: string): V {
  if (value === undefined || value === '') {
    throw new Error(`${variable} is not set: the ${port} port cannot run in Lambda without it`);
  }
  return value;
}
