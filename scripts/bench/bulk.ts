/**
 * The bench's own DynamoDB client, and its one bulk writer: BatchWriteItem, 25 items a request,
 * `inFlight` requests at once (DynamoDB Local parses one while it stores another: 8 wrote ~1.5× what 4
 * did on 2 shared cores), the unprocessed sent again; a failure thrown by the next `put` or `done`.
 */
import { BatchWriteCommand, DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { createConversions } from 'electrodb';
import { localClient } from '../local/dynamo-local.ts';
import { BENCH_TABLE } from './env.ts';
import { round } from './stats.ts';

export const benchClient = (endpoint: string) =>
  DynamoDBDocumentClient.from(localClient(endpoint), { marshallOptions: { removeUndefinedValues: true } });

/** The bulk writer to the bench's table on DynamoDB Local at `endpoint`. */
export function bulkWriter(endpoint: string, inFlight = 8) {
  const [client, table] = [benchClient(endpoint), BENCH_TABLE];
  const started = performance.now();
  const pending = new Set<Promise<void>>();
  const figures = { items: 0, requests: 0, retries: 0 };
  const buffer: Record<string, unknown>[] = [];
  let failure: unknown;
  const send = async (items: Record<string, unknown>[]) => {
    let requests = items.map((Item) => ({ PutRequest: { Item } }));
    for (let attempt = 1; ; attempt++) {
      const { UnprocessedItems } = await client.send(
        new BatchWriteCommand({ RequestItems: { [table]: requests } }),
      );
      requests = (UnprocessedItems?.[table] ?? []) as typeof requests;
      if (!requests.length) return;
      if (attempt > 10) throw new Error(`BatchWriteItem: ${requests.length} items still unprocessed`);
      figures.retries += 1;
      await new Promise((r) => setTimeout(r, 20 * attempt));
    }
  };
  const flush = async (batch: Record<string, unknown>[]) => {
    while (pending.size >= inFlight) await Promise.race(pending);
    if (failure) throw failure;
    figures.requests += 1;
    const tracked: Promise<void> = send(batch)
      .catch((error: unknown) => {
        failure ??= error;
      })
      .finally(() => pending.delete(tracked));
    pending.add(tracked);
  };
  return {
    async put(...items: Record<string, unknown>[]): Promise<void> {
      buffer.push(...items);
      figures.items += items.length;
      while (buffer.length >= 25) await flush(buffer.splice(0, 25));
    },
    async done() {
      if (buffer.length) await flush(buffer.splice(0));
      await Promise.all(pending);
      if (failure) throw failure;
      const seconds = (performance.now() - started) / 1000;
      return { ...figures, seconds: round(seconds), itemsPerSecond: round(figures.items / seconds, 0) };
    },
  };
}

/**
 * The item an ElectroDB entity writes for a record, as `put(record).params().Item` builds it but
 * without put's per-call work, most of the seeding's time outside DynamoDB Local. Defaults applied;
 * setters, validation and `field` renames not: for records the service's builders made whole.
 */
interface ModelledEntity {
  schema: {
    model: { entity: string; version: string };
    attributes: Record<string, object>;
  };
}

/** A builder of `entity`'s items: keys from its templates, its entity and version markers. */
export function itemBuilder<R extends object = object>(
  entity: ModelledEntity,
): (record: R) => Record<string, unknown> {
  const toKeys = createConversions(entity as never).fromComposite.toKeys as (
    composite: object,
  ) => Record<string, string>;
  const { entity: name, version } = entity.schema.model;
  const defaults = Object.entries(entity.schema.attributes).flatMap(([attribute, definition]) => {
    const value = (definition as { default?: unknown }).default;
    return value === undefined ? [] : [{ attribute, value }];
  });
  return (record) => {
    const item: Record<string, unknown> = {};
    for (const [attribute, value] of Object.entries(record)) if (value !== undefined) item[attribute] = value;
    for (const { attribute, value } of defaults) {
      item[attribute] ??= typeof value === 'function' ? (value as () => unknown)() : value;
    }
    return { ...item, ...toKeys(item), __edb_e__: name, __edb_v__: version };
  };
}
