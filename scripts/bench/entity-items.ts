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
import { createConversions } from 'electrodb';

interface ModelledEntity {
  schema: {
    model: { entity: string; version: string };
    attributes: Record<string, object>;
  };
}

/** A builder of `entity`'s items: keys from its templates, its entity and version markers. */
export function itemBuilder<R extends object>(
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
