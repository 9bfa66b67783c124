import { dynamo } from '../../functions/data/client.ts';

/**
 * Makes DynamoDB Local answer batch calls the way a throttled table does: BatchWriteItem and
 * BatchGetItem carry out only the first `keep` requests of each table and hand the rest back as
 * UnprocessedItems / UnprocessedKeys, for the next `calls` batch calls. Everything else, and every
 * batch call after those, goes through untouched: the code under test runs its real path.
 */
const NAME = 'injectUnprocessedBatches';

export interface UnprocessedInjection {
  /** Batch calls seen while installed, intercepted or not. */
  batchCalls: number;
  remove(): void;
}

type WriteRequests = Record<string, unknown[]>;
type GetRequests = Record<string, { Keys: unknown[] } & Record<string, unknown>>;

export function injectUnprocessedBatches(options: { calls: number; keep: number }): UnprocessedInjection {
  let left = options.calls;
  const injection: UnprocessedInjection = {
    batchCalls: 0,
    remove: () => dynamo().middlewareStack.remove(NAME),
  };
  dynamo().middlewareStack.add(
    (next, context) => async (args) => {
      const command = context.commandName ?? '';
      const isWrite = /^BatchWrite/.test(command);
      if (!isWrite && !/^BatchGet/.test(command)) return next(args);
      injection.batchCalls += 1;
      if (left <= 0) return next(args);
      left -= 1;
      const input = args.input as { RequestItems: WriteRequests | GetRequests };
      const sent: Record<string, unknown> = {};
      const held: Record<string, unknown> = {};
      for (const [table, requests] of Object.entries(input.RequestItems)) {
        if (isWrite) {
          const writes = requests as unknown[];
          if (writes.length > options.keep) held[table] = writes.slice(options.keep);
          if (options.keep > 0) sent[table] = writes.slice(0, options.keep);
        } else {
          const { Keys, ...rest } = requests as GetRequests[string];
          if (Keys.length > options.keep) held[table] = { ...rest, Keys: Keys.slice(options.keep) };
          if (options.keep > 0) sent[table] = { ...rest, Keys: Keys.slice(0, options.keep) };
        }
      }
      const done =
        Object.keys(sent).length > 0
          ? ((await next({ ...args, input: { ...input, RequestItems: sent } })).output as Record<
              string,
              unknown
            >)
          : { Responses: {}, $metadata: {} };
      const output = isWrite ? { ...done, UnprocessedItems: held } : { ...done, UnprocessedKeys: held };
      return { output, response: {} } as Awaited<ReturnType<typeof next>>;
    },
    { step: 'initialize', name: NAME },
  );
  return injection;
}
