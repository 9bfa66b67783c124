/**
 * The bench's own DynamoDB client (seeding, the floor), the SDK's as anyone writes it, and its one
 * bulk writer for the scale runs: BatchWriteItem, 25 items a request, `inFlight` requests at once
 * (DynamoDB Local parses one while it stores another: 8 wrote ~1.5× what 4 did on 2 shared cores),
 * what comes back unprocessed sent again. A failed request is thrown by the next `put` or by `done`.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { BatchWriteCommand, DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { createConversions } from 'electrodb';
import { round } from './stats.ts';

export function benchClient(endpoint: string): DynamoDBDocumentClient {
  const credentials = { accessKeyId: 'local', secretAccessKey: 'local' };
  const client = new DynamoDBClient({ endpoint, region: 'us-east-1', credentials });
  return DynamoDBDocumentClient.from(client, { marshallOptions: { removeUndefinedValues: true } });
}

export function bulkWriter(client: DynamoDBDocumentClient, table: string, inFlight = 8) {
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
 * The table item an ElectroDB entity writes for a record, built the way `Entity.put(record)
 * .params().Item` builds it but without put's per-call work: its query chain, validation and
 * proxies cost ~1 ms a token and ~7 ms a Lead on the bench machine (under load), most of what
 * seeding 500,000 Leads spent outside DynamoDB Local. The keys come from the entity's own key
 * templates (ElectroDB's `createConversions`, as data/listings.ts builds a listing's key), the
 * attributes are the record's, so the item is the service's item: test/unit/bench-entity-items.test.ts
 * checks it equals `put().params().Item` over a sample of the bench population.
 *
 * Attribute defaults are applied as put applies them (a claim's `retired: false`); setters,
 * validation and `field` renames are not: for records the service's builders made whole, as
 * `withDerivedKeys`, `tokensOf` and `leadClaimOf` do.
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
