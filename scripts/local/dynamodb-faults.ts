import { AsyncLocalStorage } from 'node:async_hooks';
import { randomBytes } from 'node:crypto';
import {
  appendFileSync,
  closeSync,
  mkdirSync,
  openSync,
  readdirSync,
  readSync,
  rmSync,
  statSync,
} from 'node:fs';
import { join } from 'node:path';
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import {
  DynamoDBClient,
  InternalServerError,
  ProvisionedThroughputExceededException,
  ThrottlingException,
  TransactionCanceledException,
} from '@aws-sdk/client-dynamodb';
import { BatchGetCommand, DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { marshall, unmarshall } from '@aws-sdk/util-dynamodb';
import type { HandlerExecutionContext, MiddlewareStack } from '@smithy/types';
import { seededRandom } from './demo-photos.ts';

/**
 * A DynamoDB as strict as DynamoDB for the tests and the bench: an AWS SDK v3 middleware that makes
 * DynamoDB Local (always strongly consistent, never cancelling a transaction for a conflict, never
 * throttling, never losing an answer) answer the way the real service may.
 *
 * Each fault is decided by its own seeded generator, so that a run is reproduced by its seed:
 *
 * - **Eventual consistency.** Every write (PutItem, UpdateItem, DeleteItem, TransactWriteItems,
 *   BatchWriteItem) learns the old images of the items it names (a single-item write that asks for
 *   no values back is sent with `ReturnValues: ALL_OLD`, and answers without them; the others first
 *   read the items strongly consistently on an unfaulted client, `readCurrent`) and, once the write
 *   succeeded, keeps them with the time the write completed: a per-key history of the last `staleMs`.
 *   A read that is not strongly consistent (GetItem, BatchGetItem or Query without
 *   `ConsistentRead: true`; a Query on a GSI always) is, with probability `staleRate`, answered as of
 *   `staleMs` ago: each item written since then is replaced by its image from before the earliest
 *   such write, and omitted when it did not exist yet. GetItem and BatchGetItem also bring back an
 *   item deleted within the window (they name its key).
 *   A Query on the table itself only drops or substitutes the items DynamoDB Local returned: it keeps
 *   the current image where the older one differs in an attribute the key condition or filter names
 *   (the older image might not match: leaving it out or in would both be guesses), and never brings
 *   back a deleted item.
 *   A Query on a GSI (`IndexName`) models the index lagging its table:
 *   - an item returned whose older image differs in an attribute of the index's key (`indexKeys`),
 *     the key condition or the filter is omitted: it moved within the index, or into it, and the
 *     index had not caught up. (Where its older image would still have matched, DynamoDB would have
 *     answered that older image instead; omitting it is the one simplification, and a reader that
 *     copes with a missing item copes with an outdated one in the same way.)
 *   - an item deleted within the window comes back, appended after the others and projected, when
 *     its image from before the window had every key attribute of the index (it was in the index) and
 *     the key condition and filter, evaluated exactly on that image, hold: each a conjunction (`AND`,
 *     parentheses) of `=`, `<`, `<=`, `>`, `>=`, `BETWEEN`, `begins_with`, `attribute_exists` and
 *     `attribute_not_exists` on top-level attributes, compared on strings (by their UTF-8 bytes, as
 *     DynamoDB does) and numbers. Anything else (`OR`, `NOT`, `<>`, `contains`, `size`, `IN`, nested
 *     paths) is not evaluated and nothing comes back. Only on a complete answer (no
 *     `ExclusiveStartKey`, no `LastEvaluatedKey`, within `Limit`), and only for the indexes
 *     `indexKeys` names. Not modelled: the order of the index (the item is appended, not sorted
 *     in), an item that moved out of the queried partition by an update (it is brought back only once
 *     deleted: an update's new image is not kept), the index's own projection (the tables here
 *     project ALL).
 *   Only the reads `isCodeUnderTest` admits are answered stale: in the tests, those of the code under
 *   test.
 *   **Across processes**: with `sharedDir` (`DYNAMODB_FAULTS_SHARED_DIR`), every injector also
 *   appends each write's versions (key, time, old image) to a file of its own in that directory (JSON
 *   lines, `<pid>-<random>.versions.jsonl`), and before answering a read stale reads what the other
 *   files gained since it last looked (by byte offset, at most every 50 ms): a write made by the API
 *   process is read stale by the stream consumer's. Times are then wall-clock (`Date.now()`), the one
 *   clock processes share; without it the clock is monotonic and per process. `settleDynamoWrites()`
 *   settles, in this process, the writes of every process made so far. A file past 16 MiB is
 *   replaced by a new one, and the writer deletes its old files once they are older than the window.
 * - **Transaction conflicts.** With probability `conflictRate` a TransactWriteItems is refused with
 *   `TransactionCanceledException` before it is sent (nothing is written): one reason per item,
 *   `TransactionConflict` for one of them, `None` for the others, as DynamoDB answers a transaction
 *   that raced another on an item.
 * - **Throttling.** With probability `throttleRate` an attempt fails with
 *   `ProvisionedThroughputExceededException` or `ThrottlingException`, thrown in the deserialize step,
 *   below the SDK's retry middleware (finalizeRequest), so that the SDK's own retries absorb it. At
 *   most one attempt of a call is throttled: the test run is about the code handling a throttle the
 *   SDK retried, not about the SDK's retry budget.
 * - **Throttling past the retries.** With probability `pastRetriesRate` a call of the code under test
 *   fails with one of the same two errors thrown above the SDK's retries (initialize step): what the
 *   caller sees when a partition stays hot longer than the SDK retries, without the SDK's wait.
 * - **Unprocessed batch items.** With probability `unprocessedRate` a BatchWriteItem or BatchGetItem
 *   of two or more items, of the code under test, is carried out in part: from one to all but one of
 *   its items (drawn) are not sent to DynamoDB Local, and come back as `UnprocessedItems` /
 *   `UnprocessedKeys` (merged with whatever DynamoDB Local itself left unprocessed), as DynamoDB
 *   answers under load. (A batch of one item is left alone: DynamoDB answers a batch it can do none
 *   of with a throughput error, not with everything unprocessed.)
 * - **Ambiguous commits.** With probability `ambiguousRate` a write of the code under test is sent
 *   and lands, and then its answer is lost: the caller's side sees a `TimeoutError` (no HTTP status)
 *   or a 500 `InternalServerError`, alternately. Half of them are lost per attempt, in the deserialize
 *   step below the SDK's retry middleware: the SDK classes both errors as transient and sends the
 *   write again, as it does on AWS, so an unconditional write lands twice and a conditional one then
 *   fails its condition against its own first landing, which is what the code under test must
 *   survive. (A TransactWriteItems is the exception, on AWS as here: the SDK draws its
 *   ClientRequestToken once a call, and DynamoDB answers the retry as the transaction that landed.)
 *   The other half are
 *   lost above the retries (initialize step): the write landed once and the caller gets the error,
 *   as when every retry's answer was lost too, and must find out by itself whether it landed. The
 *   history a stale read serves keeps the landed write even when the call then fails.
 *
 * Items are handled in the document client's form (the form ElectroDB and `@aws-sdk/lib-dynamodb`
 * commands carry in the initialize step); a call in the marshalled form of the low-level client is
 * neither recorded nor faulted for consistency (it can still be throttled, conflict, be answered in
 * part or lose its answer).
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
  /** The share of calls of the code under test throttled past the SDK's retries (`DYNAMODB_FAULTS_PAST_RETRIES_RATE`). */
  pastRetriesRate: number;
  /** The share of batch calls of the code under test answered in part (`DYNAMODB_FAULTS_UNPROCESSED_RATE`). */
  unprocessedRate: number;
  /** The share of writes of the code under test whose answer is lost once they landed (`DYNAMODB_FAULTS_AMBIGUOUS_RATE`). */
  ambiguousRate: number;
  /**
   * A directory through which the injectors of several processes share their writes, so that one
   * process reads stale what another wrote (`DYNAMODB_FAULTS_SHARED_DIR`); unset, each keeps its own.
   */
  sharedDir?: string;
}

/** No faults: what `DYNAMODB_FAULTS=off` installs, so that a test's `withDynamoFaults` still applies. */
export const NO_DYNAMO_FAULTS: DynamoFaultSettings = {
  seed: 0,
  staleMs: 500,
  staleRate: 0,
  conflictRate: 0,
  throttleRate: 0,
  pastRetriesRate: 0,
  unprocessedRate: 0,
  ambiguousRate: 0,
};

/**
 * The settings `npm test` runs the int and e2e projects with: every fault on for every file. Half the
 * non-consistent reads of the code under test answer as of 500 ms ago, so a read that must see a
 * write is consistent (by-id reads, the reads that gate a write) and a test that lists through an
 * index right after its writes waits for the index first (`afterIndexLag`, test/support/eventually.ts),
 * as an integrator must on AWS. The faults the caller sees itself (throttles past the retries, batches
 * answered in part, lost answers) are off: a run turns them on through the environment.
 */
export const DEFAULT_DYNAMO_FAULTS: DynamoFaultSettings = {
  seed: 21,
  staleMs: 500,
  staleRate: 0.5,
  conflictRate: 0.1,
  throttleRate: 0.03,
  pastRetriesRate: 0,
  unprocessedRate: 0,
  ambiguousRate: 0,
};

type NumericSetting = Exclude<keyof DynamoFaultSettings, 'sharedDir'>;

const ENV_NAMES: Record<NumericSetting, string> = {
  seed: 'DYNAMODB_FAULTS_SEED',
  staleMs: 'DYNAMODB_FAULTS_STALE_MS',
  staleRate: 'DYNAMODB_FAULTS_STALE_RATE',
  conflictRate: 'DYNAMODB_FAULTS_CONFLICT_RATE',
  throttleRate: 'DYNAMODB_FAULTS_THROTTLE_RATE',
  pastRetriesRate: 'DYNAMODB_FAULTS_PAST_RETRIES_RATE',
  unprocessedRate: 'DYNAMODB_FAULTS_UNPROCESSED_RATE',
  ambiguousRate: 'DYNAMODB_FAULTS_AMBIGUOUS_RATE',
};

/** The directory the processes of a run share their writes' history through (see `sharedDir`). */
export const SHARED_DIR_ENV = 'DYNAMODB_FAULTS_SHARED_DIR';

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
  for (const [field, name] of Object.entries(ENV_NAMES) as [NumericSetting, string][]) {
    const raw = env[name];
    if (raw === undefined || raw === '') continue;
    const value = Number(raw);
    const isRate = field.endsWith('Rate');
    if (!Number.isFinite(value) || value < 0 || (isRate && value > 1)) {
      throw new Error(`${name}=${raw}: expected ${isRate ? 'a rate from 0 to 1' : 'a number ≥ 0'}`);
    }
    settings[field] = value;
  }
  const sharedDir = env[SHARED_DIR_ENV];
  if (sharedDir) settings.sharedDir = sharedDir;
  return settings;
}

/** How to reproduce a run: the settings as the environment variables that set them. */
export function describeDynamoFaults(settings: DynamoFaultSettings | undefined): string {
  if (!settings) return 'DynamoDB faults off (DYNAMODB_FAULTS=off)';
  const variables = (Object.entries(ENV_NAMES) as [NumericSetting, string][]).map(
    ([field, name]) => `${name}=${settings[field]}`,
  );
  if (settings.sharedDir) variables.push(`${SHARED_DIR_ENV}=${settings.sharedDir}`);
  return `DynamoDB faults on: ${variables.join(' ')}`;
}

type Item = Record<string, unknown>;
type Input = Record<string, unknown>;

/** What the faults did, for the tests of the middleware and a run's summary. */
export interface DynamoFaultLog {
  /**
   * One line per injected fault, in order: `stale GetItem`, `conflict 2/3`, `throttle Query`,
   * `past-retries Query`, `unprocessed BatchWriteItem 2/5`, `ambiguous PutItem` (lost above the
   * retries), `ambiguous attempt PutItem` (lost below them, the SDK sends it again)…
   */
  events: string[];
}

export interface DynamoFaultOptions {
  /** Strongly consistent reads of items of one table on a client without the faults, in key order. */
  readCurrent: (table: string, keys: Item[]) => Promise<(Item | undefined)[]>;
  /** The table's key attributes. @default ['pk', 'sk'] */
  keyAttributes?: readonly string[];
  /**
   * The key attributes of each global secondary index (partition key first): a stale Query on an
   * index named here may bring back an item deleted within the window. @default none
   */
  indexKeys?: Readonly<Record<string, readonly string[]>>;
  /**
   * Whether the call being made is one of the code under test: only those are answered stale,
   * throttled past the retries, answered in part or lose their answer (a `withDynamoFaults` scope
   * always is). The tests answer: only inside a function (a handler, a worker, the stream consumer),
   * so that a test's own setup and checks read and write the table as it is. @default always
   */
  isCodeUnderTest?: () => boolean;
  /**
   * Calls that are not DynamoDB's to fault, whoever makes them: the soak's local SES stand-in keeps
   * its outbox in the table, and an email is not a DynamoDB write. @default none
   */
  exempt?: (input: Record<string, unknown>) => boolean;
  /** A clock in ms. @default `Date.now` with a `sharedDir` (comparable across processes), else process.hrtime */
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

/** Where an ambiguous commit's answer is lost: per attempt (the SDK sends it again) or for the call. */
export type AmbiguityLevel = 'attempt' | 'call';

/** What a test may change for the calls of one scope (`withDynamoFaults`). */
export interface DynamoFaultOverrides extends Partial<Omit<DynamoFaultSettings, 'seed' | 'sharedDir'>> {
  /** Cancel the scope's next `count` TransactWriteItems for a conflict on member `member` (0-based). */
  conflicts?: { count: number; member: number };
  /**
   * Throttles (at `throttleRate`) are thrown above the SDK's retry middleware: the caller sees the
   * throttle as when a partition stays hot past the SDK's retries, without the SDK's backoff wait.
   */
  throttlePastRetries?: boolean;
  /**
   * Lose the answer of the scope's next `count` writes (of the API `operation` only, e.g.
   * `TransactWriteItems`, when given) at `level`, after they landed.
   */
  ambiguous?: { count: number; level: AmbiguityLevel; operation?: string };
}

const scopes = new AsyncLocalStorage<DynamoFaultOverrides>();

/**
 * Runs `work` with other fault settings for the DynamoDB calls it makes (and only those): a test
 * that needs one fault for certain, e.g. every read stale for a minute, or the next transaction
 * cancelled for a conflict on its second member, whatever the run's settings.
 */
export function withDynamoFaults<T>(overrides: DynamoFaultOverrides, work: () => Promise<T>): Promise<T> {
  return scopes.run(
    {
      ...overrides,
      // Copies: the scope counts its injected faults down without changing the caller's object.
      ...(overrides.conflicts ? { conflicts: { ...overrides.conflicts } } : {}),
      ...(overrides.ambiguous ? { ambiguous: { ...overrides.ambiguous } } : {}),
    },
    work,
  );
}

/** mulberry32, the demo photos' seeded generator: enough to draw reproducible decisions. */
const generator = seededRandom;

const monotonicMs = () => Number(process.hrtime.bigint() / 1_000_000n);

/** One write of a key: the image it replaced, when the new one became visible, and whether it deleted it. */
interface Version {
  at: number;
  before: Item | undefined;
  deletes: boolean;
}

/** The writes that may land twice or lose their answer (ambiguous commits). */
const WRITE_APIS = new Set(['PutItem', 'UpdateItem', 'DeleteItem', 'TransactWriteItems', 'BatchWriteItem']);

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

type Condition = (item: Item) => boolean;

/** DynamoDB's order of two values of one scalar type (strings by UTF-8 bytes); undefined across types. */
function compareScalars(a: unknown, b: unknown): number | undefined {
  if (typeof a === 'number' && typeof b === 'number') return Math.sign(a - b);
  if (typeof a === 'string' && typeof b === 'string') return Buffer.compare(Buffer.from(a), Buffer.from(b));
  return undefined;
}

const COMPARISONS: Record<string, (order: number) => boolean> = {
  '=': (order) => order === 0,
  '<': (order) => order < 0,
  '<=': (order) => order <= 0,
  '>': (order) => order > 0,
  '>=': (order) => order >= 0,
};

const UNKNOWN_VALUE = Symbol('unknown value');

/**
 * A key condition or filter as a predicate that holds exactly where DynamoDB's would, or undefined
 * when the expression is not one this file evaluates exactly: a conjunction (`AND`, parentheses) of
 * comparisons, `BETWEEN`, `begins_with`, `attribute_exists` and `attribute_not_exists` on top-level
 * attributes and string or number values. No expression: always true.
 */
export function exactCondition(
  expression: unknown,
  names: Record<string, string> | undefined,
  values: Record<string, unknown> | undefined,
): Condition | undefined {
  if (expression === undefined) return () => true;
  if (typeof expression !== 'string') return undefined;
  const tokens = expression.match(/[#:]?[A-Za-z0-9_]+|<=|>=|<>|\S/g) ?? [];
  let at = 0;
  const take = () => tokens[at++];
  const isWord = (token: string | undefined, word: string) => token?.toLowerCase() === word;
  const attribute = (): string | undefined => {
    const token = take();
    if (token === undefined || !/^#?[A-Za-z_][A-Za-z0-9_]*$/.test(token)) return undefined;
    if (EXPRESSION_WORDS.has(token) || EXPRESSION_WORDS.has(token.toLowerCase())) return undefined;
    return token.startsWith('#') ? names?.[token] : token;
  };
  const operand = (): unknown => {
    const token = take();
    if (!token?.startsWith(':') || values === undefined || !(token in values)) return UNKNOWN_VALUE;
    const value = values[token];
    return typeof value === 'string' || typeof value === 'number' ? value : UNKNOWN_VALUE;
  };
  const term = (): Condition[] | undefined => {
    const token = tokens[at];
    if (token === '(') {
      take();
      const inner = conjunction();
      return inner && take() === ')' ? inner : undefined;
    }
    const call = token?.toLowerCase();
    if (call === 'begins_with' || call === 'attribute_exists' || call === 'attribute_not_exists') {
      take();
      if (take() !== '(') return undefined;
      const name = attribute();
      if (name === undefined) return undefined;
      if (call === 'begins_with') {
        if (take() !== ',') return undefined;
        const prefix = operand();
        if (typeof prefix !== 'string' || take() !== ')') return undefined;
        return [(item) => typeof item[name] === 'string' && (item[name] as string).startsWith(prefix)];
      }
      if (take() !== ')') return undefined;
      return call === 'attribute_exists'
        ? [(item) => item[name] !== undefined]
        : [(item) => item[name] === undefined];
    }
    const name = attribute();
    if (name === undefined) return undefined;
    const operator = take();
    if (isWord(operator, 'between')) {
      const low = operand();
      if (!isWord(take(), 'and')) return undefined;
      const high = operand();
      if (low === UNKNOWN_VALUE || high === UNKNOWN_VALUE || typeof low !== typeof high) return undefined;
      return [
        (item) =>
          (compareScalars(item[name], low) ?? -1) >= 0 && (compareScalars(item[name], high) ?? 1) <= 0,
      ];
    }
    const holds = operator === undefined ? undefined : COMPARISONS[operator];
    const right = operand();
    if (holds === undefined || right === UNKNOWN_VALUE) return undefined;
    return [
      (item) => {
        const order = compareScalars(item[name], right);
        return order !== undefined && holds(order);
      },
    ];
  };
  const conjunction = (): Condition[] | undefined => {
    const terms: Condition[] = [];
    for (;;) {
      const next = term();
      if (!next) return undefined;
      terms.push(...next);
      if (!isWord(tokens[at], 'and')) return terms;
      take();
    }
  };
  const terms = conjunction();
  if (!terms || at !== tokens.length) return undefined;
  return (item) => terms.every((holds) => holds(item));
}

/** One version as a line of a shared history file. */
interface SharedVersionLine {
  id: string;
  at: number;
  deletes: boolean;
  /** The old image, marshalled (sets, binary and numbers survive JSON), or null when there was none. */
  before: Record<string, AttributeValue> | null;
}

/** JSON for marshalled images: binary (`B`, `BS`) as base64 text, restored on reading. */
const encodeBinary = (_key: string, value: unknown) =>
  value instanceof Uint8Array ? { base64: Buffer.from(value).toString('base64') } : value;
const decodeBinary = (_key: string, value: unknown) =>
  typeof value === 'object' && value !== null && typeof (value as { base64?: unknown }).base64 === 'string'
    ? new Uint8Array(Buffer.from((value as { base64: string }).base64, 'base64'))
    : value;

/** A file of one injector gets a successor past this size (its writer deletes it once it is out of the window). */
const SHARED_FILE_LIMIT_BYTES = 16 * 1024 * 1024;
/** How often an injector looks for other processes' writes, at most. */
const SHARED_READ_INTERVAL_MS = 50;
const SHARED_FILE_SUFFIX = '.versions.jsonl';

/**
 * The writes of every injector that shares `directory`: this injector appends its own to a file of
 * its own, and reads the others' files from where it stopped (byte offsets), so that each line is
 * read once and a reader never parses a writer's line half-written (the rest waits for the next look).
 */
class SharedHistory {
  private readonly directory: string;
  private readonly ownFiles: { path: string; lastAt: number }[] = [];
  private ownBytes = 0;
  private readonly offsets = new Map<string, { bytes: number; partial: string }>();
  private lastRead = Number.NEGATIVE_INFINITY;

  constructor(directory: string) {
    this.directory = directory;
    mkdirSync(directory, { recursive: true });
    this.startFile();
  }

  private startFile(): void {
    const name = `${process.pid}-${randomBytes(6).toString('hex')}${SHARED_FILE_SUFFIX}`;
    this.ownFiles.push({ path: join(this.directory, name), lastAt: Number.NEGATIVE_INFINITY });
    this.ownBytes = 0;
  }

  private get ownFile() {
    return this.ownFiles[this.ownFiles.length - 1] as { path: string; lastAt: number };
  }

  append(versions: SharedVersionLine[], at: number, keepMs: number): void {
    const text = versions.map((line) => `${JSON.stringify(line, encodeBinary)}\n`).join('');
    appendFileSync(this.ownFile.path, text);
    this.ownFile.lastAt = at;
    this.ownBytes += Buffer.byteLength(text);
    if (this.ownBytes < SHARED_FILE_LIMIT_BYTES) return;
    this.startFile();
    // The readers have long read what is older than the window, and would not serve it anyway.
    for (const file of this.ownFiles.slice(0, -1)) {
      if (at - file.lastAt <= keepMs) continue;
      rmSync(file.path, { force: true });
      this.ownFiles.splice(this.ownFiles.indexOf(file), 1);
    }
  }

  /** The other injectors' versions written since the last look (nothing when looked within 50 ms). */
  readOthers(now: number): SharedVersionLine[] {
    if (now - this.lastRead < SHARED_READ_INTERVAL_MS) return [];
    this.lastRead = now;
    const own = new Set(this.ownFiles.map((file) => file.path));
    const found: SharedVersionLine[] = [];
    const present = new Set<string>();
    for (const name of readdirSync(this.directory)) {
      const path = join(this.directory, name);
      if (!name.endsWith(SHARED_FILE_SUFFIX) || own.has(path)) continue;
      present.add(path);
      const offset = this.offsets.get(path) ?? { bytes: 0, partial: '' };
      this.offsets.set(path, offset);
      let fresh: Buffer;
      try {
        const size = statSync(path).size;
        if (size <= offset.bytes) continue;
        fresh = Buffer.alloc(size - offset.bytes);
        const descriptor = openSync(path, 'r');
        try {
          readSync(descriptor, fresh, 0, fresh.length, offset.bytes);
        } finally {
          closeSync(descriptor);
        }
      } catch {
        continue; // deleted by its writer meanwhile: what it held is out of the window
      }
      offset.bytes += fresh.length;
      const lines = (offset.partial + fresh.toString('utf8')).split('\n');
      offset.partial = lines.pop() ?? '';
      for (const line of lines) {
        if (line) found.push(JSON.parse(line, decodeBinary) as SharedVersionLine);
      }
    }
    for (const path of this.offsets.keys()) if (!present.has(path)) this.offsets.delete(path);
    return found;
  }
}

/** The `settle` of every injector installed in this process (one per client the faults were added to). */
const settlers = new Set<() => void>();
/** The log of every injector installed in this process. */
const logs: DynamoFaultLog[] = [];

/**
 * Every fault injected in this process so far, by every injector, in order per injector: for a test
 * whose client was given the faults elsewhere (test/support/dynamodb-faults-setup.ts).
 */
export function injectedDynamoFaults(): string[] {
  return logs.flatMap((log) => log.events);
}

/**
 * Marks every write made so far as visible to every later read, as if the indexes and replicas had
 * caught up: the barrier a test uses after its writes and before the code under test lists them
 * (`afterIndexLag`, test/support/eventually.ts), instead of sleeping out the stale window. Writes
 * that complete afterwards may still be read stale. Returns whether any injector is installed here
 * (none: the faults, if any, run in another process, and only waiting helps). It settles the reads of
 * this process only, but of writes made by any process sharing its history (`sharedDir`).
 */
export function settleDynamoWrites(): boolean {
  for (const settle of settlers) settle();
  return settlers.size > 0;
}

/** What the faults of one call tell each other across the middleware steps (the call's context). */
interface FaultContext extends HandlerExecutionContext {
  dynamoFaultsThrottled?: boolean;
  /** This write's answer is to be lost (after it landed), and where. */
  dynamoFaultsAmbiguity?: AmbiguityLevel;
  /** An attempt of this write landed and its answer was lost: the write is in the table. */
  dynamoFaultsAnswerLost?: boolean;
}

/** One item a write names. */
interface WrittenKey {
  table: string;
  key: Item;
  deletes: boolean;
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
  logs.push(log);
  /** The settings of the call being made: the run's, or its scope's overrides. */
  const current = (): DynamoFaultSettings => ({ ...settings, ...scopes.getStore() });
  /** Whether the call being made may see the faults meant for the code under test. */
  const underTest = () =>
    scopes.getStore() !== undefined || options.isCodeUnderTest === undefined || options.isCodeUnderTest();
  const keyAttributes = options.keyAttributes ?? ['pk', 'sk'];
  const shared = settings.sharedDir ? new SharedHistory(settings.sharedDir) : undefined;
  const now = options.now ?? (shared ? Date.now : monotonicMs);
  const staleDraw = generator(settings.seed ^ 0x5eed0001);
  const conflictDraw = generator(settings.seed ^ 0x5eed0002);
  const throttleDraw = generator(settings.seed ^ 0x5eed0003);
  const pastRetriesDraw = generator(settings.seed ^ 0x5eed0004);
  const unprocessedDraw = generator(settings.seed ^ 0x5eed0005);
  const ambiguousDraw = generator(settings.seed ^ 0x5eed0006);
  let ambiguousAnswers = 0;
  const history = new Map<string, Version[]>();
  /** The keys whose latest version deleted the item (a stale Query on an index may bring them back). */
  const deleted = new Set<string>();
  let lastSweep = now();
  /** Writes completed before this time are visible to every read (settleDynamoWrites). */
  let settledAt = Number.NEGATIVE_INFINITY;
  settlers.add(() => {
    settledAt = now();
  });
  // Versions older than the window can no longer be served (a scope's longer window included).
  const keepMs = Math.max(settings.staleMs, 60_000);

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
  const tableOf = (id: string) => (JSON.parse(id) as unknown[])[0];

  /** Adds a version in time order (another process's may arrive after later ones of this process). */
  const addVersion = (id: string, version: Version) => {
    const versions = history.get(id) ?? [];
    let index = versions.length;
    while (index > 0 && (versions[index - 1] as Version).at > version.at) index -= 1;
    versions.splice(index, 0, version);
    history.set(id, versions);
    if ((versions[versions.length - 1] as Version).deletes) deleted.add(id);
    else deleted.delete(id);
  };

  const forget = (at: number) => {
    if (at - lastSweep < keepMs) return;
    lastSweep = at;
    for (const [key, versions] of history) {
      const recent = versions.filter((v) => at - v.at <= keepMs);
      if (recent.length > 0) {
        history.set(key, recent);
        continue;
      }
      history.delete(key);
      deleted.delete(key);
    }
  };

  /** Keeps the versions a write made (its keys' old images), here and for the processes sharing them. */
  const record = (writes: WrittenKey[], before: (Item | undefined)[], at: number) => {
    const lines: SharedVersionLine[] = [];
    for (const [i, { table, key, deletes }] of writes.entries()) {
      const id = historyKey(table, key);
      const image = before[i];
      addVersion(id, { at, before: image, deletes });
      if (!shared) continue;
      try {
        const marshalled = image
          ? marshall(image, { removeUndefinedValues: true, convertClassInstanceToMap: true })
          : null;
        lines.push({ id, at, deletes, before: marshalled });
      } catch {
        // An image the SDK cannot marshall was not written by DynamoDB either: nothing to share.
      }
    }
    if (shared && lines.length > 0) shared.append(lines, at, keepMs);
    forget(at);
  };

  /** Takes in what the other processes wrote since the last look. */
  const readShared = () => {
    if (!shared) return;
    const at = now();
    for (const line of shared.readOthers(at)) {
      if (at - line.at > keepMs) continue;
      addVersion(line.id, {
        at: line.at,
        before: line.before ? (unmarshall(line.before) as Item) : undefined,
        deletes: line.deletes,
      });
    }
    forget(at);
  };

  /** The items a write names (document form only). */
  const writtenKeys = (apiName: string, input: Input): WrittenKey[] => {
    const written: { table: string; key: Item | undefined; deletes: boolean }[] = [];
    switch (apiName) {
      case 'PutItem':
        written.push({ table: String(input.TableName), key: keyOf(input.Item), deletes: false });
        break;
      case 'UpdateItem':
      case 'DeleteItem':
        written.push({
          table: String(input.TableName),
          key: keyOf(input.Key),
          deletes: apiName === 'DeleteItem',
        });
        break;
      case 'TransactWriteItems':
        for (const member of (input.TransactItems ?? []) as Record<string, Input>[]) {
          if (member.Put)
            written.push({
              table: String(member.Put.TableName),
              key: keyOf(member.Put.Item),
              deletes: false,
            });
          if (member.Update)
            written.push({
              table: String(member.Update.TableName),
              key: keyOf(member.Update.Key),
              deletes: false,
            });
          if (member.Delete)
            written.push({
              table: String(member.Delete.TableName),
              key: keyOf(member.Delete.Key),
              deletes: true,
            });
        }
        break;
      case 'BatchWriteItem':
        for (const [table, requests] of Object.entries(
          (input.RequestItems ?? {}) as Record<string, Input[]>,
        )) {
          for (const request of requests) {
            const put = request.PutRequest as Input | undefined;
            const del = request.DeleteRequest as Input | undefined;
            written.push({ table, key: keyOf(put ? put.Item : del?.Key), deletes: put === undefined });
          }
        }
        break;
    }
    return written.filter((write): write is WrittenKey => write.key !== undefined);
  };

  /** A PutItem, UpdateItem or DeleteItem that asks for no values back: it may ask for ALL_OLD. */
  const ownsOldImage = (apiName: string, input: Input) =>
    (apiName === 'PutItem' || apiName === 'UpdateItem' || apiName === 'DeleteItem') &&
    (input.ReturnValues === undefined || input.ReturnValues === 'NONE');

  /** The current images of the keys a write names, one read per table (a transaction has up to 100). */
  const readAll = async (writes: WrittenKey[]): Promise<(Item | undefined)[]> => {
    const tables = [...new Set(writes.map(({ table }) => table))];
    const images = new Map<string, Item | undefined>();
    await Promise.all(
      tables.map(async (table) => {
        const keys = writes.filter((write) => write.table === table).map(({ key }) => key);
        const found = await options.readCurrent(table, keys);
        for (const [i, key] of keys.entries()) images.set(historyKey(table, key), found[i]);
      }),
    );
    return writes.map(({ table, key }) => images.get(historyKey(table, key)));
  };

  /** The first version of a key written after `time`, if any. */
  const firstAfter = (id: string, time: number) => history.get(id)?.find((v) => v.at > time);

  /** The image of a key as of `asOf`: `current` unless it was written since. */
  const asOf = (table: string, key: Item, current: Item | undefined, time: number): Item | undefined => {
    const first = firstAfter(historyKey(table, key), time);
    return first ? first.before : current;
  };

  const staleGet = (input: Input, item: Item | undefined, time: number): Item | undefined => {
    const table = String(input.TableName);
    const key = keyOf(input.Key);
    if (!key) return item;
    const old = asOf(table, key, item, time);
    return old === undefined ? undefined : project(old, projected(input));
  };

  /**
   * The items deleted within the window that a stale Query on an index would still find: only where
   * the index's keys are known and the query's conditions can be evaluated exactly (see the header).
   */
  const deletedInIndex = (input: Input, output: Input, kept: number, time: number): Item[] => {
    const indexKeys = options.indexKeys?.[String(input.IndexName)];
    if (!indexKeys || input.ExclusiveStartKey !== undefined || output.LastEvaluatedKey !== undefined)
      return [];
    const names = input.ExpressionAttributeNames as Record<string, string> | undefined;
    const values = input.ExpressionAttributeValues as Record<string, unknown> | undefined;
    const keyCondition = exactCondition(input.KeyConditionExpression, names, values);
    const filter = exactCondition(input.FilterExpression, names, values);
    if (input.KeyConditionExpression === undefined || !keyCondition || !filter) return [];
    const room = typeof input.Limit === 'number' ? input.Limit - kept : Number.POSITIVE_INFINITY;
    const found: Item[] = [];
    for (const id of deleted) {
      if (found.length >= room) break;
      if (tableOf(id) !== input.TableName) continue;
      const old = firstAfter(id, time)?.before;
      if (!old || !indexKeys.every((name) => old[name] !== undefined)) continue;
      if (keyCondition(old) && filter(old)) found.push(project(old, projected(input)));
    }
    return found;
  };

  const staleQuery = (input: Input, output: Input, time: number): Item[] => {
    const table = String(input.TableName);
    const items = (output.Items ?? []) as Item[];
    const names = input.ExpressionAttributeNames as Record<string, string> | undefined;
    const onIndex = typeof input.IndexName === 'string';
    const matched = [
      ...namesIn(input.KeyConditionExpression, names),
      ...namesIn(input.FilterExpression, names),
      ...(onIndex ? (options.indexKeys?.[String(input.IndexName)] ?? []) : []),
    ];
    const attributes = projected(input);
    const kept = items.flatMap((item) => {
      const key = keyOf(item);
      if (!key) return [item];
      const old = asOf(table, key, item, time);
      if (old === undefined) return [];
      // On the table the older image might not match (keep the current one); on an index, an item
      // that changed where it sits had not reached its new place yet.
      if (matched.some((name) => !sameValue(old[name], item[name]))) return onIndex ? [] : [item];
      return [project(old, attributes)];
    });
    return onIndex ? [...kept, ...deletedInIndex(input, output, kept.length, time)] : kept;
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

  /**
   * A batch answered in part: the input to send instead (without the held items), and how to add the
   * held items to the answer as unprocessed. Undefined when this batch is answered whole.
   */
  const holdPartOfBatch = (
    apiName: string,
    input: Input,
  ): { sent: Input; report: (output: Input) => void } | undefined => {
    if (apiName !== 'BatchWriteItem' && apiName !== 'BatchGetItem') return undefined;
    const requestItems = (input.RequestItems ?? {}) as Record<string, unknown>;
    // Every request of the batch as [table, position in its table's list].
    const all: [string, number][] = [];
    for (const [table, request] of Object.entries(requestItems)) {
      const list = (apiName === 'BatchWriteItem' ? request : (request as Input).Keys) as unknown[];
      for (const index of list.keys()) all.push([table, index]);
    }
    if (all.length < 2 || unprocessedDraw() >= current().unprocessedRate) return undefined;
    // From one to all but one of them, drawn.
    const count = 1 + Math.floor(unprocessedDraw() * (all.length - 1));
    for (let i = all.length - 1; i > 0; i -= 1) {
      const j = Math.floor(unprocessedDraw() * (i + 1));
      [all[i], all[j]] = [all[j] as [string, number], all[i] as [string, number]];
    }
    const held = new Set(all.slice(0, count).map(([table, index]) => `${index} ${table}`));
    const isHeld = (table: string) => (_: unknown, index: number) => held.has(`${index} ${table}`);
    const sent: Record<string, unknown> = {};
    const unprocessed: Record<string, unknown> = {};
    for (const [table, request] of Object.entries(requestItems)) {
      if (apiName === 'BatchWriteItem') {
        const writes = request as unknown[];
        const kept = writes.filter((write, index) => !isHeld(table)(write, index));
        const left = writes.filter(isHeld(table));
        if (kept.length > 0) sent[table] = kept;
        if (left.length > 0) unprocessed[table] = left;
      } else {
        const { Keys, ...rest } = request as Input & { Keys: unknown[] };
        const kept = Keys.filter((key, index) => !isHeld(table)(key, index));
        const left = Keys.filter(isHeld(table));
        if (kept.length > 0) sent[table] = { ...rest, Keys: kept };
        if (left.length > 0) unprocessed[table] = { ...rest, Keys: left };
      }
    }
    log.events.push(`unprocessed ${apiName} ${count}/${all.length}`);
    const field = apiName === 'BatchWriteItem' ? 'UnprocessedItems' : 'UnprocessedKeys';
    return {
      sent: { ...input, RequestItems: sent },
      report: (output) => {
        const already = (output[field] ?? {}) as Record<string, unknown>;
        const merged: Record<string, unknown> = { ...already };
        for (const [table, left] of Object.entries(unprocessed)) {
          const before = already[table];
          merged[table] =
            apiName === 'BatchWriteItem'
              ? [...((before as unknown[] | undefined) ?? []), ...(left as unknown[])]
              : {
                  ...(left as Input),
                  Keys: [
                    ...((before as { Keys?: unknown[] } | undefined)?.Keys ?? []),
                    ...(left as Input & { Keys: unknown[] }).Keys,
                  ],
                };
        }
        output[field] = merged;
      },
    };
  };

  /** Whether this write's answer is to be lost, and where (a scope's count first, then the rate). */
  const ambiguityOf = (apiName: string): AmbiguityLevel | undefined => {
    if (!WRITE_APIS.has(apiName)) return undefined;
    const wanted = scopes.getStore()?.ambiguous;
    if (wanted && wanted.count > 0 && (wanted.operation === undefined || wanted.operation === apiName)) {
      wanted.count -= 1;
      return wanted.level;
    }
    const { ambiguousRate } = current();
    if (ambiguousRate <= 0 || !underTest() || ambiguousDraw() >= ambiguousRate) return undefined;
    return ambiguousDraw() < 0.5 ? 'attempt' : 'call';
  };

  /** A lost answer, alternately as a timeout and as a 500 (the two forms DynamoDB's take). */
  const ambiguousError = (): Error => {
    ambiguousAnswers += 1;
    if (ambiguousAnswers % 2 === 1) {
      const timeout = new Error('Connection timed out: no answer from DynamoDB') as Error & {
        $metadata: Record<string, unknown>;
      };
      timeout.name = 'TimeoutError';
      timeout.$metadata = { attempts: 1, totalRetryDelay: 0 };
      return timeout;
    }
    return new InternalServerError({
      message: 'Internal server error',
      $metadata: { httpStatusCode: 500, attempts: 1, totalRetryDelay: 0 },
    });
  };

  /** The eventual-consistency part of a call: writes keep their versions, reads may answer stale. */
  const consistency = async <R extends { output: unknown }>(
    next: (args: { input: unknown }) => Promise<R>,
    context: FaultContext,
    args: { input: unknown },
    apiName: string,
  ): Promise<R> => {
    const input = args.input as Input;
    const faults = current();
    // History is kept only while stale reads may be served (here or, shared, in another process):
    // off, a write costs no extra read.
    const keepsHistory = faults.staleRate > 0 || settings.staleRate > 0 || shared !== undefined;
    const writes = keepsHistory ? writtenKeys(apiName, input) : [];
    if (writes.length > 0) {
      let before: (Item | undefined)[];
      let result: R;
      // A write retried by the SDK after a lost answer would read back its own first landing as its
      // old image: such a write reads the old images first instead.
      if (ownsOldImage(apiName, input) && context.dynamoFaultsAmbiguity !== 'attempt') {
        // A single-item write answers its old image itself when asked: no read of our own.
        result = await next({ ...args, input: { ...input, ReturnValues: 'ALL_OLD' } });
        const output = result.output as Input;
        before = [output.Attributes as Item | undefined];
        delete output.Attributes;
      } else {
        before = await readAll(writes);
        try {
          result = await next(args);
        } catch (error) {
          // The attempt whose answer was lost landed: the table has it, whatever the retry answered.
          if (context.dynamoFaultsAnswerLost) record(writes, before, now());
          throw error;
        }
      }
      record(writes, before, now());
      return result;
    }

    const isRead = apiName === 'GetItem' || apiName === 'Query' || apiName === 'BatchGetItem';
    if (!isRead || faults.staleRate <= 0) return next(args);
    if (!underTest()) return next(args);
    const consistent = input.ConsistentRead === true && input.IndexName === undefined;
    if (apiName !== 'BatchGetItem' && consistent) return next(args);
    // One draw per read whatever its answer, so that the decisions follow the calls, not the data.
    const stale = staleDraw() < faults.staleRate;
    const result = await next(args);
    if (!stale) return result;
    readShared();
    // As of the window's start, or of the last settle when that is later.
    const time = Math.max(now() - faults.staleMs, settledAt);
    const output = result.output as Input;
    const original = JSON.stringify(output);
    if (apiName === 'GetItem') {
      const item = staleGet(input, output.Item as Item | undefined, time);
      if (item === undefined) delete output.Item;
      else output.Item = item;
    } else if (apiName === 'Query') {
      if (output.Items !== undefined) {
        const items = staleQuery(input, output, time);
        output.Items = items;
        output.Count = items.length;
      }
    } else {
      staleBatchGet(input, output, time);
    }
    if (JSON.stringify(output) !== original) log.events.push(`stale ${apiName}`);
    return result;
  };

  client.middlewareStack.add(
    (next, context) => async (args) => {
      if (options.exempt?.(args.input as Input)) return next(args);
      const apiName = (context.commandName ?? '').replace(/Command$/, '');
      const input = args.input as Input;
      const faults = current();
      const scope = scopes.getStore();
      const faultContext = context as FaultContext;

      if (scope?.throttlePastRetries && faults.throttleRate > 0 && throttleDraw() < faults.throttleRate) {
        log.events.push(`throttle ${apiName}`);
        throw throttleError(throttleDraw() < 0.5);
      }
      if (faults.pastRetriesRate > 0 && underTest() && pastRetriesDraw() < faults.pastRetriesRate) {
        log.events.push(`past-retries ${apiName}`);
        throw throttleError(pastRetriesDraw() < 0.5, PAST_RETRIES_METADATA);
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

      const partial = faults.unprocessedRate > 0 && underTest() ? holdPartOfBatch(apiName, input) : undefined;
      const sentArgs = partial ? { ...args, input: partial.sent as typeof args.input } : args;
      const ambiguity = ambiguityOf(apiName);
      if (ambiguity) faultContext.dynamoFaultsAmbiguity = ambiguity;
      const result = await consistency(
        next as unknown as (a: { input: unknown }) => Promise<Awaited<ReturnType<typeof next>>>,
        faultContext,
        sentArgs,
        apiName,
      );
      partial?.report(result.output as Input);
      if (ambiguity === 'call') {
        log.events.push(`ambiguous ${apiName}`);
        throw ambiguousError();
      }
      return result;
    },
    { step: 'initialize', priority: 'low', name: 'dynamoFaultsConsistency' },
  );

  client.middlewareStack.add(
    (next, context) => async (args) => {
      if (options.exempt?.(args.input as Input)) return next(args);
      const apiName = (context.commandName ?? '').replace(/Command$/, '');
      const faultContext = context as FaultContext;
      const { throttleRate } = current();
      // A scope that throttles past the retries does so above them (initialize step) instead.
      const throttles = !scopes.getStore()?.throttlePastRetries && throttleRate > 0;
      if (throttles && throttleDraw() < throttleRate && !faultContext.dynamoFaultsThrottled) {
        faultContext.dynamoFaultsThrottled = true;
        log.events.push(`throttle ${apiName}`);
        throw throttleError(throttleDraw() < 0.5);
      }
      if (faultContext.dynamoFaultsAmbiguity === 'attempt' && !faultContext.dynamoFaultsAnswerLost) {
        // The attempt is sent and lands; its answer never reaches the SDK, which sends it again.
        await next(args);
        faultContext.dynamoFaultsAnswerLost = true;
        log.events.push(`ambiguous attempt ${apiName}`);
        throw ambiguousError();
      }
      return next(args);
    },
    { step: 'deserialize', priority: 'high', name: 'dynamoFaultsThrottle' },
  );

  return log;
}

/** What the SDK reports on an error it gave up on: its three attempts (standard retry mode). */
const PAST_RETRIES_METADATA = { httpStatusCode: 400, attempts: 3, totalRetryDelay: 0 };

/** What DynamoDB answers a call over its partition's throughput (either of its two forms). */
function throttleError(
  provisioned: boolean,
  $metadata: { httpStatusCode: number; attempts: number; totalRetryDelay: number } = {
    httpStatusCode: 400,
    attempts: 1,
    totalRetryDelay: 0,
  },
): Error {
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
