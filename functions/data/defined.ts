/**
 * `T` with every member that may be undefined made optional instead: what a record takes when an
 * attribute is absent. ElectroDB stores absent attributes, never `undefined` ones, and under
 * `exactOptionalPropertyTypes` the two differ.
 */
export type Defined<T> = {
  [K in keyof T as undefined extends T[K] ? never : K]: T[K];
} & {
  [K in keyof T as undefined extends T[K] ? K : never]?: Exclude<T[K], undefined>;
};

/** `value` without its undefined members (see {@link Defined}). */
export function withoutUndefined<T extends object>(value: T): Defined<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Defined<T>;
}
