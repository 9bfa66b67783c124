import { AsyncLocalStorage } from 'node:async_hooks';
import {
  DynamoDBClient,
  ProvisionedThroughputExceededException,
  ThrottlingException,
  TransactionCanceledException,
} from '@aws-sdk/client-dynamodb';
import { BatchGetCommand, DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { HandlerExecutionContext, MiddlewareStack } from '@smithy/types';
import { seededRandom } from '../../scripts/local/demo-photos.ts';

/**
 * A DynamoDB as strict as DynamoDB for the tests and the bench: an AWS SDK v3 middleware that makes
 * DynamoDB Local (always strongly consistent, never cancelling a transaction for a conflict, never
 * throttling) answer the way the real service may.
 *
 * Three faults, each decided by its own seeded generator so a run is reproduced by its seed:
 *
 * - **Eventual consistency.** Every write (PutItem, UpdateItem, DeleteItem, TransactWriteItems,
 *   BatchWriteItem) learns the old images of the items it names (a single-item write that asks for
 *   no values back is sent with `ReturnValues: ALL_OLD`, and answers without them; the others first
 *   read the items strongly consistently on an unfaulted client, `readCurrent`) and, once the write
 *   succeeded, keeps them with the time the write completed: a per-key history of the last `staleMs`. A read that is not strongly
 *   consistent (GetItem, BatchGetItem or Query without `ConsistentRead: true`; a Query on a GSI
 *   always) is, with probability `staleRate`, answered as of `staleMs` ago: each item written since
 *   then is replaced by its image from before the earliest such write, and omitted when it did not
 *   exist yet. GetItem and BatchGetItem also bring back an item deleted within the window (they name
 *   its key). A Query only ever drops or substitutes the items DynamoDB Local returned: it keeps the
 *   current image where the older one differs in an attribute the key condition or filter names
 *   (the older image might not match: leaving it out or in would both be guesses), and it never
 *   brings back items deleted in the window (it cannot tell which would match). Only the reads
 *   `staleReadsApply` admits are answered stale: in the tests, those of the code under test.
 * - **Transaction conflicts.** With probability `conflictRate` a TransactWriteItems is refused with
 *   `TransactionCanceledException` before it is sent (nothing is written): one reason per item,
 *   `TransactionConflict` for one of them, `None` for the others, as DynamoDB answers a transaction
 *   that raced another on an item.
 * - **Throttling.** With probability `throttleRate` an attempt fails with
 *   `ProvisionedThroughputExceededException` or `ThrottlingException`, thrown in the deserialize step,
 *   below the SDK's retry middleware (finalizeRequest), so that the SDK's own retries absorb it. At
 *   most one attempt of a call is throttled: the test run is about the code handling a throttle the
 *   SDK retried, not about the SDK's retry budget.
 *
 * Items are handled in the document client's form (the form ElectroDB and `@aws-sdk/lib-dynamodb`
 * commands carry in the initialize step); a call in the marshalled form of the low-level client is
 * neither recorded nor faulted for consistency (it can still be throttled or conflict).
 *
 * Concurrent writes of one key each keep the image they read before writing, so a stale read may
 * answer any version current at some moment of the window or just before it: what DynamoDB's
 * eventual consistency allows too. The decisions follow the order of the calls, so calls that run
 * concurrently may draw in a different order from run to run.
 */
export interface DynamoFaultSettings {
  /** The seed of the generators (`DYNAMODB_FAULTS_SEED`). */
  seed: number;
  /** How far back a stale read may answer, in ms (`DYNAMODB_FAULTS_STALE_MS`). */
  staleMs: number;
  /** The share of non-consistent reads answered stale (`DYNAMODB_FAULTS_STALE_RATE`). */
  staleRate: number;
  /** The share of TransactWriteItems cancelled for a conflict (`DYNAMODB_FAULTS_CONFLICT_RATE`). */
  conflictRate: number;
  /** The share of calls whose first attempt is throttled (`DYNAMODB_FAULTS_THROTTLE_RATE`). */
  throttleRate: number;
}

/** No faults: what `DYNAMODB_FAULTS=off` installs, so that a test's `withDynamoFaults` still applies. */
export const NO_DYNAMO_FAULTS: DynamoFaultSettings = {
  seed: 0,
  staleMs: 500,
  staleRate: 0,
  conflictRate: 0,
  throttleRate: 0,
};

/**
 * The settings `npm test` runs the int and e2e projects with: every fault on for every file. Half the
 * non-consistent reads of the code under test answer as of 500 ms ago, so a read that must see a
 * write is consistent (by-id reads, the reads that gate a write) and a test that lists through an
 * index right after its writes waits for the index first (`afterIndexLag`, test/support/eventually.ts),
 * as an integrator must on AWS.
 */
export const DEFAULT_DYNAMO_FAULTS: DynamoFaultSettings = {
  seed: 21,
  staleMs: 500,
  staleRate: 0.5,
  conflictRate: 0.1,
  throttleRate: 0.03,
};

const ENV_NAMES: Record<keyof DynamoFaultSettings, string> = {
  seed: 'DYNAMODB_FAULTS_SEED',
  staleMs: 'DYNAMODB_FAULTS_STALE_MS',
  staleRate: 'DYNAMODB_FAULTS_STALE_RATE',
  conflictRate: 'DYNAMODB_FAULTS_CONFLICT_RATE',
  throttleRate: 'DYNAMODB_FAULTS_THROTTLE_RATE',
};

/**
 * The settings from the environment: `DYNAMODB_FAULTS=off` turns the faults off (undefined), each
 * `DYNAMODB_FAULTS_*` overrides its default. A value that is not a number is refused, so that a
 * typo does not silently run with the default.
 */
export function dynamoFaultSettingsFromEnv(
  env: NodeJS.ProcessEnv = process.env,
): DynamoFaultSettings | undefined {
  if (env.DYNAMODB_FAULTS === 'off') return undefined;
  const settings = { ...DEFAULT_DYNAMO_FAULTS };
  for (const [field, name] of Object.entries(ENV_NAMES) as [keyof DynamoFaultSettings, string][]) {
    const raw = env[name];
    if (raw === undefined || raw === '') continue;
    const value = Number(raw);
    const isRate = field.endsWith('Rate');
    if (!Number.isFinite(value) || value < 0 || (isRate && value > 1)) {
      throw new Error(`${name}=${raw}: expected ${isRate ? 'a rate from 0 to 1' : 'a number ≥ 0'}`);
    }
    settings[field] = value;
  }
  return settings;
}

/** How to reproduce a run: the settings as the environment variables that set them. */
export function describeDynamoFaults(settings: DynamoFaultSettings | undefined): string {
  if (!settings) return 'DynamoDB faults off (DYNAMODB_FAULTS=off)';
  return `DynamoDB faults on: ${Object.entries(ENV_NAMES)
    .map(([field, name]) => `${name}=${settings[field as keyof DynamoFaultSettings]}`)
    .join(' ')}`;
}

type Item = Record<string, unknown>;
type Input = Record<string, unknown>;

/** What the faults did, for the tests of the middleware and a run's summary. */
export interface DynamoFaultLog {
  /** One line per injected fault, in order: `stale GetItem`, `conflict 2/3`, `throttle Query`… */
  events: string[];
}

export interface DynamoFaultOptions {
  /** Strongly consistent reads of items of one table on a client without the faults, in key order. */
  readCurrent: (table: string, keys: Item[]) => Promise<(Item | undefined)[]>;
  /** The table's key attributes. @default ['pk', 'sk'] */
  keyAttributes?: readonly string[];
  /**
   * Whether the call being made may be answered stale (a `withDynamoFaults` scope always may). The
   * tests answer: only inside a function (a handler, a worker), so that a test's own setup and
   * checks read the table as it is. @default always
   */
  staleReadsApply?: () => boolean;
  /** A monotonic clock in ms. @default process.hrtime */
  now?: () => number;
}

/**
 * The seed of one stream of calls (a test file) under the run's seed: every file draws its own
 * decisions, reproducibly, instead of all of them faulting their first transaction alike.
 */
export function streamSeed(seed: number, stream: string): number {
  // FNV-1a over the stream's name, mixed with the run's seed.
  let hash = 0x811c9dc5 ^ seed;
  for (const char of stream) hash = Math.imul(hash ^ (char.codePointAt(0) ?? 0), 0x01000193);
  return hash >>> 0;
}

/** What a test may change for the calls of one scope (`withDynamoFaults`). */
export interface DynamoFaultOverrides extends Partial<Omit<DynamoFaultSettings, 'seed'>> {
  /** Cancel the scope's next `count` TransactWriteItems for a conflict on member `member` (0-based). */
  conflicts?: { count: number; member: number };
  /**
   * Throttles (at `throttleRate`) are thrown above the SDK's retry middleware: the caller sees the
   * throttle as when a partition stays hot past the SDK's retries, without the SDK's backoff wait.
   */
  throttlePastRetries?: boolean;
}

const scopes = new AsyncLocalStorage<DynamoFaultOverrides>();

/**
 * Runs `work` with other fault settings for the DynamoDB calls it makes (and only those): a test
 * that needs one fault for certain, e.g. every read stale for a minute, or the next transaction
 * cancelled for a conflict on its second member, whatever the run's settings.
 */
export function withDynamoFaults<T>(overrides: DynamoFaultOverrides, work: () => Promise<T>): Promise<T> {
  return scopes.run(
    { ...overrides, ...(overrides.conflicts ? { conflicts: { ...overrides.conflicts } } : {}) },
    work,
  );
}

/** mulberry32, the demo photos' seeded generator: enough to draw reproducible decisions. */
const generator = seededRandom;

const monotonicMs = () => Number(process.hrtime.bigint() / 1_000_000n);

/** One write of a key: the image it replaced, and when the new one became visible. */
interface Version {
  at: number;
  before: Item | undefined;
}

/** Names in an expression that may be attributes (placeholders resolved); over-inclusion is harmless. */
const EXPRESSION_WORDS = new Set([
  'AND',
  'OR',
  'NOT',
  'BETWEEN',
  'IN',
  'and',
  'or',
  'not',
  'between',
  'in',
  'begins_with',
  'attribute_exists',
  'attribute_not_exists',
  'attribute_type',
  'contains',
  'size',
]);

function namesIn(expression: unknown, names: Record<string, string> | undefined): string[] {
  if (typeof expression !== 'string') return [];
  const found: string[] = [];
  for (const token of expression.match(/[#:]?[A-Za-z_][A-Za-z0-9_]*/g) ?? []) {
    if (token.startsWith(':') || EXPRESSION_WORDS.has(token)) continue;
    found.push(token.startsWith('#') ? (names?.[token] ?? token) : token);
  }
  return found;
}

/** The top-level attributes a ProjectionExpression keeps, or undefined when it keeps all. */
function projected(input: Input): string[] | undefined {
  if (typeof input.ProjectionExpression !== 'string') return undefined;
  const names = input.ExpressionAttributeNames as Record<string, string> | undefined;
  return input.ProjectionExpression.split(',').map((path) => {
    const top = (path.trim().split(/[.[]/)[0] ?? '').trim();
    return top.startsWith('#') ? (names?.[top] ?? top) : top;
  });
}

function project(item: Item, attributes: string[] | undefined): Item {
  if (!attributes) return item;
  return Object.fromEntries(Object.entries(item).filter(([name]) => attributes.includes(name)));
}

const sameValue = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/** The `settle` of every injector installed in this process (one per client the faults were added to). */
const settlers = new Set<() => void>();

/**
 * Marks every write made so far as visible to every later read, as if the indexes and replicas had
 * caught up: the barrier a test uses after its writes and before the code under test lists them
 * (`afterIndexLag`, test/support/eventually.ts), instead of sleeping out the stale window. Writes
 * that complete afterwards may still be read stale. Returns whether any injector is installed here
 * (none: the faults, if any, run in another process, and only waiting helps).
 */
export function settleDynamoWrites(): boolean {
  for (const settle of settlers) settle();
  return settlers.size > 0;
}

/**
 * Adds the faults to a DynamoDB client's middleware stack (the document client shares its stack with
 * the client it wraps). Returns the log of what it injected.
 */
export function addDynamoFaults<I extends object, O extends object>(
  client: { middlewareStack: MiddlewareStack<I, O> },
  settings: DynamoFaultSettings,
  options: DynamoFaultOptions,
): DynamoFaultLog {
  const log: DynamoFaultLog = { events: [] };
  /** The settings of the call being made: the run's, or its scope's overrides. */
  const current = (): DynamoFaultSettings => ({ ...settings, ...scopes.getStore() });
  const keyAttributes = options.keyAttributes ?? ['pk', 'sk'];
  const now = options.now ?? monotonicMs;
  const staleDraw = generator(settings.seed ^ 0x5eed0001);
  const conflictDraw = generator(settings.seed ^ 0x5eed0002);
  const throttleDraw = generator(settings.seed ^ 0x5eed0003);
  const history = new Map<string, Version[]>();
  let lastSweep = now();
  /** Writes completed before this time are visible to every read (settleDynamoWrites). */
  let settledAt = Number.NEGATIVE_INFINITY;
  settlers.add(() => {
    settledAt = now();
  });

  /** The item's key in the document form, or undefined for a marshalled item (`{pk: {S: …}}`). */
  const keyOf = (item: unknown): Item | undefined => {
    if (typeof item !== 'object' || item === null) return undefined;
    const key: Item = {};
    for (const name of keyAttributes) {
      const value = (item as Item)[name];
      if (value === undefined || (typeof value === 'object' && value !== null)) return undefined;
      key[name] = value;
    }
    return key;
  };
  const historyKey = (table: string, key: Item) =>
    JSON.stringify([table, ...keyAttributes.map((name) => key[name])]);

  const forget = (at: number) => {
    // Versions older than the window can no longer be served (a scope's longer window included).
    const keep = Math.max(settings.staleMs, 60_000);
    if (at - lastSweep < keep) return;
    lastSweep = at;
    for (const [key, versions] of history) {
      const recent = versions.filter((v) => at - v.at <= keep);
      if (recent.length === 0) history.delete(key);
      else history.set(key, recent);
    }
  };

  /** The items a write names, as [table, key] pairs (document form only). */
  const writtenKeys = (apiName: string, input: Input): [string, Item][] => {
    const pairs: [string, Item | undefined][] = [];
    switch (apiName) {
      case 'PutItem':
        pairs.push([String(input.TableName), keyOf(input.Item)]);
        break;
      case 'UpdateItem':
      case 'DeleteItem':
        pairs.push([String(input.TableName), keyOf(input.Key)]);
        break;
      case 'TransactWriteItems':
        for (const member of (input.TransactItems ?? []) as Record<string, Input>[]) {
          if (member.Put) pairs.push([String(member.Put.TableName), keyOf(member.Put.Item)]);
          if (member.Update) pairs.push([String(member.Update.TableName), keyOf(member.Update.Key)]);
          if (member.Delete) pairs.push([String(member.Delete.TableName), keyOf(member.Delete.Key)]);
        }
        break;
      case 'BatchWriteItem':
        for (const [table, requests] of Object.entries(
          (input.RequestItems ?? {}) as Record<string, Input[]>,
        )) {
          for (const request of requests) {
            const put = request.PutRequest as Input | undefined;
            const del = request.DeleteRequest as Input | undefined;
            pairs.push([table, keyOf(put ? put.Item : del?.Key)]);
          }
        }
        break;
    }
    return pairs.filter((pair): pair is [string, Item] => pair[1] !== undefined);
  };

  /** A PutItem, UpdateItem or DeleteItem that asks for no values back: it may ask for ALL_OLD. */
  const ownsOldImage = (apiName: string, input: Input) =>
    (apiName === 'PutItem' || apiName === 'UpdateItem' || apiName === 'DeleteItem') &&
    (input.ReturnValues === undefined || input.ReturnValues === 'NONE');

  /** The current images of the keys a write names, one read per table (a transaction has up to 100). */
  const readAll = async (writes: [string, Item][]): Promise<(Item | undefined)[]> => {
    const tables = [...new Set(writes.map(([table]) => table))];
    const images = new Map<string, Item | undefined>();
    await Promise.all(
      tables.map(async (table) => {
        const keys = writes.filter(([t]) => t === table).map(([, key]) => key);
        const found = await options.readCurrent(table, keys);
        for (const [i, key] of keys.entries()) images.set(historyKey(table, key), found[i]);
      }),
    );
    return writes.map(([table, key]) => images.get(historyKey(table, key)));
  };

  /** The image of a key as of `asOf`: `current` unless it was written since. */
  const asOf = (table: string, key: Item, current: Item | undefined, time: number): Item | undefined => {
    const versions = history.get(historyKey(table, key));
    const first = versions?.find((v) => v.at > time);
    return first ? first.before : current;
  };

  const staleGet = (input: Input, item: Item | undefined, time: number): Item | undefined => {
    const table = String(input.TableName);
    const key = keyOf(input.Key);
    if (!key) return item;
    const old = asOf(table, key, item, time);
    return old === undefined ? undefined : project(old, projected(input));
  };

  const staleQuery = (input: Input, items: Item[], time: number): Item[] => {
    const table = String(input.TableName);
    const names = input.ExpressionAttributeNames as Record<string, string> | undefined;
    const matched = [
      ...namesIn(input.KeyConditionExpression, names),
      ...namesIn(input.FilterExpression, names),
    ];
    const attributes = projected(input);
    return items.flatMap((item) => {
      const key = keyOf(item);
      if (!key) return [item];
      const old = asOf(table, key, item, time);
      if (old === undefined) return [];
      if (matched.some((name) => !sameValue(old[name], item[name]))) return [item];
      return [project(old, attributes)];
    });
  };

  const staleBatchGet = (input: Input, output: Input, time: number): void => {
    const responses = (output.Responses ?? {}) as Record<string, Item[]>;
    for (const [table, request] of Object.entries((input.RequestItems ?? {}) as Record<string, Input>)) {
      if (request.ConsistentRead === true) continue;
      const found = responses[table] ?? [];
      const byKey = new Map(found.map((item) => [historyKey(table, keyOf(item) ?? {}), item]));
      const answered: Item[] = [];
      for (const requested of (request.Keys ?? []) as Item[]) {
        const key = keyOf(requested);
        if (!key) continue;
        const current = byKey.get(historyKey(table, key));
        const old = asOf(table, key, current, time);
        if (old !== undefined) answered.push(current === old ? old : project(old, projected(request)));
      }
      // Marshalled items (no document key) are left as they came.
      answered.push(...found.filter((item) => keyOf(item) === undefined));
      responses[table] = answered;
    }
  };

  client.middlewareStack.add(
    (next, context) => async (args) => {
      const apiName = (context.commandName ?? '').replace(/Command$/, '');
      const input = args.input as Input;
      const faults = current();
      const scope = scopes.getStore();

      if (scope?.throttlePastRetries && faults.throttleRate > 0 && throttleDraw() < faults.throttleRate) {
        log.events.push(`throttle ${apiName}`);
        throw throttleError(throttleDraw() < 0.5);
      }

      if (apiName === 'TransactWriteItems') {
        const members = (input.TransactItems ?? []) as unknown[];
        let conflicted: number | undefined;
        if (scope?.conflicts && scope.conflicts.count > 0) {
          scope.conflicts.count -= 1;
          conflicted = scope.conflicts.member;
        } else if (faults.conflictRate > 0 && conflictDraw() < faults.conflictRate && members.length > 0) {
          conflicted = Math.floor(conflictDraw() * members.length);
        }
        if (conflicted !== undefined) {
          log.events.push(`conflict ${conflicted + 1}/${members.length}`);
          const codes = members.map((_, i) => (i === conflicted ? 'TransactionConflict' : 'None'));
          throw new TransactionCanceledException({
            message: `Transaction cancelled, please refer cancellation reasons for specific reasons [${codes.join(', ')}]`,
            $metadata: { httpStatusCode: 400, attempts: 1, totalRetryDelay: 0 },
            CancellationReasons: codes.map((Code) =>
              Code === 'None' ? { Code } : { Code, Message: 'Transaction is ongoing for the item' },
            ),
          });
        }
      }

      // History is kept only while stale reads may be served: off, a write costs no extra read.
      const writes = faults.staleRate > 0 || settings.staleRate > 0 ? writtenKeys(apiName, input) : [];
      if (writes.length > 0) {
        let before: (Item | undefined)[];
        let result: Awaited<ReturnType<typeof next>>;
        if (ownsOldImage(apiName, input)) {
          // A single-item write answers its old image itself when asked: no read of our own.
          result = await next({ ...args, input: { ...input, ReturnValues: 'ALL_OLD' } as typeof args.input });
          const output = result.output as Input;
          before = [output.Attributes as Item | undefined];
          delete output.Attributes;
        } else {
          before = await readAll(writes);
          result = await next(args);
        }
        const at = now();
        for (const [i, [table, key]] of writes.entries()) {
          const id = historyKey(table, key);
          history.set(id, [...(history.get(id) ?? []), { at, before: before[i] }]);
        }
        forget(at);
        return result;
      }

      const isRead = apiName === 'GetItem' || apiName === 'Query' || apiName === 'BatchGetItem';
      if (!isRead || faults.staleRate <= 0) return next(args);
      if (scope === undefined && options.staleReadsApply && !options.staleReadsApply()) return next(args);
      const consistent = input.ConsistentRead === true && input.IndexName === undefined;
      if (apiName !== 'BatchGetItem' && consistent) return next(args);
      // One draw per read whatever its answer, so that the decisions follow the calls, not the data.
      const stale = staleDraw() < faults.staleRate;
      const result = await next(args);
      if (!stale) return result;
      // As of the window's start, or of the last settle when that is later.
      const time = Math.max(now() - faults.staleMs, settledAt);
      const output = result.output as Input;
      const original = JSON.stringify(output);
      if (apiName === 'GetItem') {
        const item = staleGet(input, output.Item as Item | undefined, time);
        if (item === undefined) delete output.Item;
        else output.Item = item;
      } else if (apiName === 'Query') {
        const items = staleQuery(input, (output.Items ?? []) as Item[], time);
        if (output.Items !== undefined) {
          output.Items = items;
          output.Count = items.length;
        }
      } else {
        staleBatchGet(input, output, time);
      }
      if (JSON.stringify(output) !== original) log.events.push(`stale ${apiName}`);
      return result;
    },
    { step: 'initialize', priority: 'low', name: 'dynamoFaultsConsistency' },
  );

  client.middlewareStack.add(
    (next, context) => async (args) => {
      const apiName = (context.commandName ?? '').replace(/Command$/, '');
      const throttled = context as HandlerExecutionContext & { dynamoFaultsThrottled?: boolean };
      const { throttleRate } = current();
      // A scope that throttles past the retries does so above them (initialize step) instead.
      if (scopes.getStore()?.throttlePastRetries) return next(args);
      if (throttleRate > 0 && throttleDraw() < throttleRate && !throttled.dynamoFaultsThrottled) {
        throttled.dynamoFaultsThrottled = true;
        log.events.push(`throttle ${apiName}`);
        throw throttleError(throttleDraw() < 0.5);
      }
      return next(args);
    },
    { step: 'deserialize', priority: 'high', name: 'dynamoFaultsThrottle' },
  );

  return log;
}

/** What DynamoDB answers a call over its partition's throughput (either of its two forms). */
function throttleError(provisioned: boolean): Error {
  const $metadata = { httpStatusCode: 400, attempts: 1, totalRetryDelay: 0 };
  return provisioned
    ? new ProvisionedThroughputExceededException({
        message: 'The level of configured provisioned throughput for the table was exceeded.',
        $metadata,
      })
    : new ThrottlingException({
        message: 'Throughput exceeds the current capacity of your table or index.',
        $metadata,
      });
}

/**
 * `readCurrent` for a DynamoDB at `endpoint` (DynamoDB Local): strongly consistent BatchGetItems on
 * a client of its own, so that the faults' own reads are neither faulted, metered nor recorded.
 */
export function consistentReader(endpoint: string, region: string): DynamoFaultOptions['readCurrent'] {
  const reader = DynamoDBDocumentClient.from(
    new DynamoDBClient({ endpoint, region, credentials: { accessKeyId: 'local', secretAccessKey: 'local' } }),
  );
  return async (table, keys) => {
    const found = new Map<string, Item>();
    const keyId = (key: Item, item: Item = key) =>
      JSON.stringify(
        Object.keys(key)
          .sort()
          .map((name) => item[name]),
      );
    // Distinct keys (a transaction names each item once, a batch may repeat), 100 a request.
    const distinct = [...new Map(keys.map((key) => [keyId(key), key])).values()];
    for (let start = 0; start < distinct.length; start += 100) {
      let pending: Item[] = distinct.slice(start, start + 100);
      while (pending.length > 0) {
        const answer = await reader.send(
          new BatchGetCommand({ RequestItems: { [table]: { Keys: pending, ConsistentRead: true } } }),
        );
        const shape = keys[0] ?? {};
        for (const item of answer.Responses?.[table] ?? []) found.set(keyId(shape, item), item);
        pending = (answer.UnprocessedKeys?.[table]?.Keys ?? []) as Item[];
      }
    }
    return keys.map((key) => found.get(keyId(key)));
  };
}
