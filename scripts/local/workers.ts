/**
 * The worker table (functions/workers.ts) run locally: each row's handler on the local stand-in of
 * its trigger. The table's stream is polled (scripts/local/stream-poller.ts), a queue is the
 * table-backed local queue (scripts/local/queue-poller.ts), and a schedule runs at start and then
 * every `localEveryMs` (shrunk with the webhook ladder for the sweeper: `localPeriodMsOf`). Lambda's
 * failure destination for the stream is the parked partition here; the stream's shard checkpoints
 * are kept in DATA_DIR, so a restart resumes where it stopped.
 */
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { runAsFunction } from '../../functions/kernel/aws-operations.ts';
import { config } from '../../functions/kernel/config.ts';
import { type WorkerDefinition, type WorkerName, workers } from '../../functions/workers.ts';

const ROOT = resolve(import.meta.dirname, '../..');

/** A started worker; `stop` ends its poller or timer. */
interface Running {
  stop(): void;
}

/** The `handler` export of a row's entry, loaded as Lambda loads it. */
async function handlerOf<H>(row: WorkerDefinition): Promise<H> {
  const module = (await import(pathToFileURL(resolve(ROOT, row.entry)).href)) as { handler?: H };
  if (typeof module.handler !== 'function') throw new Error(`${row.entry} exports no handler`);
  return module.handler;
}

/**
 * Scheduled rows whose period is counted in the webhook ladder's time: the sweeper looks for rungs
 * overdue by 15 minutes × RETRY_DELAY_SCALE, so it sweeps every 15 minutes × RETRY_DELAY_SCALE too:
 * as in AWS at scale 1, and every second in the soak (0.0005), whose whole ladder lasts about
 * 2 minutes. Unscaled, the ladder would be over before its first sweep.
 */
const TIMED_BY_THE_LADDER: ReadonlySet<string> = new Set<WorkerName>(['webhookSweeper']);

/** The shortest local period of a row timed by the ladder: a sweep reads every Tenant's endpoints. */
export const MIN_LADDER_TIMED_PERIOD_MS = 1_000;

/** How often a scheduled row runs locally: its `localEveryMs`, times `delayScale` for a row timed by the ladder. */
export function localPeriodMsOf(
  row: WorkerDefinition & { trigger: { kind: 'schedule' } },
  delayScale = config().RETRY_DELAY_SCALE,
): number {
  const everyMs = row.trigger.localEveryMs;
  return TIMED_BY_THE_LADDER.has(row.name)
    ? Math.max(MIN_LADDER_TIMED_PERIOD_MS, everyMs * delayScale)
    : everyMs;
}

/** The local stack the workers run against; `dataDir` keeps what must survive a restart. */
export interface LocalStack {
  endpoint: string;
  tableName: string;
  dataDir?: string;
}

/**
 * Starts one row on its local trigger. `handler` stands in for the row's own (the soak wraps the
 * stream consumer's to plant a loss); by default the row's entry is loaded as Lambda loads it.
 */
export async function startWorker(
  row: WorkerDefinition,
  stack: LocalStack,
  handler?: (event: never) => Promise<unknown>,
): Promise<Running> {
  const onError = (error: unknown) => console.error(`${row.name}:`, (error as Error).message);
  const trigger = row.trigger;
  // Each invocation runs as the function it stands for (as the API server runs each route's): the
  // stand-ins' own table calls (the queue's receipts, the stream's checkpoints) are not the
  // function's, which is how the soak's DynamoDB faults tell SQS and Streams from DynamoDB.
  const asFunction =
    <E, R>(work: (event: E) => Promise<R>) =>
    (event: E) =>
      runAsFunction(row.entry, () => work(event));
  switch (trigger.kind) {
    case 'stream': {
      const { startStreamPoller, streamMappingOf, PARKED_PARTITION } = await import('./stream-poller.ts');
      return startStreamPoller({
        endpoint: stack.endpoint,
        tableName: stack.tableName,
        handler: asFunction((handler as never) ?? (await handlerOf(row))),
        mapping: streamMappingOf(row),
        ...(stack.dataDir ? { checkpointFile: resolve(stack.dataDir, 'stream-checkpoints.json') } : {}),
        onError,
        // What Lambda's on-failure destination is in AWS: records discarded after their retries or age.
        onParked: (parked) =>
          console.error(
            `${row.name}: DISCARDED record ${parked.sequenceNumber} (event ${parked.eventId}, ${parked.reason}, ` +
              `${parked.attempts} failed attempts). Kept in the table under pk=${PARKED_PARTITION}.`,
          ),
      });
    }
    case 'queue': {
      const { startQueuePoller } = await import('./queue-poller.ts');
      return startQueuePoller({
        queue: trigger.queue,
        handler: asFunction((handler as never) ?? (await handlerOf(row))),
        ...(trigger.localPollMs === undefined ? {} : { intervalMs: trigger.localPollMs }),
        onError,
      });
    }
    case 'schedule': {
      const job =
        (handler as (() => Promise<unknown>) | undefined) ?? (await handlerOf<() => Promise<unknown>>(row));
      // A tick that comes while the last run is still going is skipped. In AWS a run ends before the
      // next one starts (the sweeper's timeout is a third of its 15 minutes; the catalogue rebuild stops
      // at the end of its minute). Scaled down with the ladder, the sweeper's period is shorter than a
      // sweep, and overlapping sweeps piled up on a slow DynamoDB Local until every call timed out and
      // webhook deliveries stopped (the ten-minute soak, seed 13).
      let inFlight = false;
      const run = async () => {
        if (inFlight) return;
        inFlight = true;
        try {
          await runAsFunction(row.entry, job);
        } catch (error) {
          onError(error);
        } finally {
          inFlight = false;
        }
      };
      void run();
      const timer = setInterval(run, localPeriodMsOf({ ...row, trigger }));
      return { stop: () => clearInterval(timer) };
    }
    default:
      throw new Error(`Worker ${row.name} has an unknown trigger ${String(trigger satisfies never)}`);
  }
}

/** Starts every worker of the table against the local stack; `stop` stops them all. */
export async function startWorkers(stack: LocalStack): Promise<Running> {
  const running: Running[] = [];
  for (const row of workers) running.push(await startWorker(row, stack));
  return {
    stop: () => {
      for (const worker of running) worker.stop();
    },
  };
}
