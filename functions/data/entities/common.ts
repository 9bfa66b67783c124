import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { dynamo, tableName } from '../client.ts';

/** Every entity belongs to this ElectroDB service; `version` is per entity. */
export const SERVICE = 'lls';

/** Keys are written exactly as built (ids and references are case-sensitive). */
export const asIs = { casing: 'none' } as const;

export function entityConfig(): { client: DynamoDBDocumentClient; table: string } {
  return { client: dynamo(), table: tableName() };
}

export const timestamps = {
  createdAt: { type: 'string', required: true, readOnly: true },
  updatedAt: { type: 'string', required: true },
} as const;

/**
 * Builds an entity on first use instead of at import. Each Lambda imports the entity modules of
 * its whole service layer, but a request touches a few of them: ElectroDB parses and checks every
 * model it is given (a few ms each), so entities a function never uses cost it nothing this way.
 * The proxy forwards everything to the real entity (methods bound to it), so callers, ElectroDB
 * Services and transactions see an ordinary Entity.
 */
export function lazyEntity<E extends object>(build: () => E): E {
  let real: E | undefined;
  const entity = () => {
    real ??= build();
    return real;
  };
  return new Proxy({} as E, {
    get(_target, property) {
      const target = entity();
      const value = Reflect.get(target, property, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
    set: (_target, property, value) => Reflect.set(entity(), property, value),
    has: (_target, property) => Reflect.has(entity(), property),
    getPrototypeOf: () => Reflect.getPrototypeOf(entity()),
    ownKeys: () => Reflect.ownKeys(entity()),
    // Reported configurable: the proxy's own (empty) target must not be seen to hold fixed properties.
    getOwnPropertyDescriptor: (_target, property) => {
      const descriptor = Reflect.getOwnPropertyDescriptor(entity(), property);
      return descriptor ? { ...descriptor, configurable: true } : undefined;
    },
  });
}

/** An item alone in its partition, `pk = t#<tenantId>#<kind>#<id>`, `sk = <kind>`: a GetItem reads it. */
export function ownPartition<const K extends string>(kind: K) {
  return {
    pk: { field: 'pk', composite: ['tenantId', 'id'], template: `t#\${tenantId}#${kind}#\${id}`, ...asIs },
    sk: { field: 'sk', composite: [], template: kind, ...asIs },
  } as const;
}

/**
 * A Tenant's items of one collection least recently updated first, by (updatedAt, id): the order of
 * every paged list, so a record changed while paging moves to the end. `partition` follows the
 * tenant id: `t#<tenantId>#<partition>`.
 */
export function updatedOrder<const I extends 'gsi1' | 'gsi2' | 'gsi3' | 'gsi4'>(index: I, partition: string) {
  return {
    index,
    pk: { field: `${index}pk`, composite: ['tenantId'], template: `t#\${tenantId}#${partition}`, ...asIs },
    sk: { field: `${index}sk`, composite: ['updatedAt', 'id'], template: '${updatedAt}#${id}', ...asIs },
  } as const;
}

/**
 * `updatedOrder` on gsi1 for a collection whose archived items live apart: the partition
 * is the item's `listKey` (say `leads` / `archived-leads`), so a live list never reads archived ones.
 */
export function updatedOrderByList() {
  return {
    index: 'gsi1',
    pk: {
      field: 'gsi1pk',
      composite: ['tenantId', 'listKey'],
      template: 't#${tenantId}#${listKey}',
      ...asIs,
    },
    sk: { field: 'gsi1sk', composite: ['updatedAt', 'id'], template: '${updatedAt}#${id}', ...asIs },
  } as const;
}
