/**
 * The local stand-in of the webhook ladder: the SQS delivery queue and the EventBridge Scheduler group
 * of its later rungs, both on the table-backed local queue.
 *
 * The Scheduler stand-in is read from the environment of the process that fires schedules (the
 * webhook queue's poller, scripts/local/queue-poller.ts):
 * - LOCAL_SCHEDULER_DUPLICATE_RATE (0 to 1, default 0): how often a firing sends its message twice, as
 *   Scheduler's at-least-once delivery may;
 * - LOCAL_SCHEDULER_TARGET_FAILURE_RATE (0 to 1, default 0): how often the send to the queue fails;
 *   the schedule stays and a later pass tries again, as Scheduler's RetryPolicy does;
 * - LOCAL_SCHEDULER_SEED (integer, default 1): seeds both draws, so that a run can be repeated;
 * - SOAK_PLANT=lose-scheduled-rung: the soak's planted fault (below);
 * - DATA_DIR: when set, every schedule made and every firing is appended to `${DATA_DIR}/scheduler.jsonl`
 *   (`SCHEDULER_LOG_FILE`) for the soak's audit to compare.
 *
 * SOAK_PLANT is read here and only here. Nothing under functions/ imports scripts/, and Lambda binds
 * the AWS ladder (functions/kernel/ports/webhook-ladder.ts), so no deployed function can enable it.
 */
import { randomUUID } from 'node:crypto';
import { appendFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { LocalQueueMessage } from '../../../functions/data/entities/local-queue-message.ts';
import { config } from '../../../functions/kernel/config.ts';
import {
  type DeliveryMessage,
  LOCAL_WEBHOOK_QUEUE,
  scheduleName,
  usesScheduler,
  type WebhookLadderPort,
} from '../../../functions/kernel/ports/webhook-ladder.ts';
import { seededRandom } from '../demo-photos.ts';
import { visibleAtKey } from './local-queue.ts';

/** The local stand-in of the ladder's EventBridge Scheduler group: one item per one-time schedule. */
export const LOCAL_WEBHOOK_SCHEDULES = `${LOCAL_WEBHOOK_QUEUE}-schedules`;

/** The audit log of the Scheduler stand-in, under DATA_DIR: one JSON line per event. */
export const SCHEDULER_LOG_FILE = 'scheduler.jsonl';

/**
 * What happened to a schedule: `created` by the ladder; `fired` onto the queue; `fired-again`, the
 * same message sent a second time (at-least-once delivery); `target-failed`, a send that failed and is
 * retried on a later pass; `lost`, deleted unsent by the soak's planted fault.
 */
export type SchedulerEventKind = 'created' | 'fired' | 'fired-again' | 'target-failed' | 'lost';

/** One line of the log: when (epoch ms), what, which schedule, and the message it carries. */
export interface SchedulerEvent {
  at: number;
  kind: SchedulerEventKind;
  /** The schedule's name (`scheduleName`): a name fired is made again if its message is queued again later. */
  schedule: string;
  body: DeliveryMessage;
}

/**
 * Appends one event to `${dataDir}/scheduler.jsonl`. Synchronous and one write per line, so that the
 * processes sharing a DATA_DIR, and a process killed with `kill -9`, leave whole lines.
 */
function logSchedulerEvent(
  dataDir: string | undefined,
  kind: SchedulerEventKind,
  schedule: string,
  body: string,
) {
  if (!dataDir) return;
  const event: SchedulerEvent = { at: Date.now(), kind, schedule, body: JSON.parse(body) as DeliveryMessage };
  appendFileSync(join(dataDir, SCHEDULER_LOG_FILE), `${JSON.stringify(event)}\n`);
}

/**
 * The events logged under `dataDir`, oldest first; none if nothing was logged. A last line without
 * its newline (a write cut short) is left out rather than failing the reader.
 */
export function readSchedulerLog(dataDir: string): SchedulerEvent[] {
  let text: string;
  try {
    text = readFileSync(join(dataDir, SCHEDULER_LOG_FILE), 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  const lines = text.split('\n');
  lines.pop(); // what follows the last newline: empty, or a line not yet written whole
  return lines.map((line) => JSON.parse(line) as SchedulerEvent);
}

export interface LocalLadderOptions {
  /** RETRY_DELAY_SCALE, which shrinks the queue's 15 minutes with the ladder. @default config().RETRY_DELAY_SCALE */
  delayScale?: number;
  /** Where the `created` events are logged. @default process.env.DATA_DIR (none if unset) */
  dataDir?: string | undefined;
}

/**
 * The local stack's ladder, following the AWS rule (`usesScheduler`): a wait up to
 * 15 minutes (× RETRY_DELAY_SCALE) is a message of the table-backed local queue, visible after the
 * delay (SQS `DelaySeconds`); a longer one is a one-time schedule, named after the message, that the
 * `LocalScheduler` sends to the queue when it falls due. Being in DynamoDB, both survive a restart of
 * `npm start`.
 */
export class LocalWebhookLadder implements WebhookLadderPort {
  readonly #delayScale: number | undefined;
  readonly #dataDir: string | undefined;

  constructor(options: LocalLadderOptions = {}) {
    this.#delayScale = options.delayScale;
    this.#dataDir = 'dataDir' in options ? options.dataDir : process.env.DATA_DIR;
  }

  async enqueue(message: DeliveryMessage, delayMs: number): Promise<void> {
    const scheduled = usesScheduler(delayMs, this.#delayScale ?? config().RETRY_DELAY_SCALE);
    const body = JSON.stringify(message);
    const id = scheduled ? scheduleName(message) : randomUUID();
    await LocalQueueMessage.create({
      queue: scheduled ? LOCAL_WEBHOOK_SCHEDULES : LOCAL_WEBHOOK_QUEUE,
      visibleAt: visibleAtKey(Date.now() + Math.max(0, delayMs)),
      id,
      body,
      receiveCount: 0,
    }).go();
    // Logged once the schedule exists: a line for a schedule that was never made would read as a loss.
    if (scheduled) logSchedulerEvent(this.#dataDir, 'created', id, body);
  }
}

/** The faults the soak may plant in the Scheduler stand-in (SOAK_PLANT). */
export type SchedulerPlant = 'lose-scheduled-rung';

export interface LocalSchedulerOptions {
  /** The share of firings that send their message twice. @default 0 */
  duplicateRate?: number;
  /** The share of sends to the queue that fail (the schedule stays for a later pass). @default 0 */
  targetFailureRate?: number;
  /** @default 1 */
  seed?: number;
  /** `lose-scheduled-rung`: the first due schedule is deleted without being sent (once). */
  plant?: SchedulerPlant | undefined;
  /** Where the firings are logged; none if unset. */
  dataDir?: string | undefined;
  /**
   * Fires only the due schedules whose message this picks (the others are left as they are). For a
   * test on the shared test table, whose schedules also hold other test files' messages.
   */
  select?: (message: DeliveryMessage) => boolean;
}

/**
 * The local stand-in of EventBridge Scheduler's one-time schedules, with its documented at-least-once
 * delivery: each schedule due is sent to the delivery queue (visible at once), then deleted
 * (`ActionAfterCompletion: DELETE`). Seeded rates make it send a message twice, or fail a send and
 * keep the schedule for a later pass (never lost: the RetryPolicy's dead-letter queue is for AWS
 * failures the local stack does not have). A crash between the send and the delete sends it again.
 * The delivery's token makes every repeat one attempt (functions/services/webhook-deliveries.ts).
 */
export class LocalScheduler {
  readonly #duplicateRate: number;
  readonly #targetFailureRate: number;
  readonly #random: () => number;
  readonly #dataDir: string | undefined;
  readonly #select: ((message: DeliveryMessage) => boolean) | undefined;
  /** Whether the planted loss is still to come (it happens once per scheduler, so once per process). */
  #lossToPlant: boolean;
  /** The pass under way: passes of one process take turns, so a schedule is not fired by two at once. */
  #passes: Promise<unknown> = Promise.resolve();

  constructor(options: LocalSchedulerOptions = {}) {
    this.#duplicateRate = options.duplicateRate ?? 0;
    this.#targetFailureRate = options.targetFailureRate ?? 0;
    this.#random = seededRandom(options.seed ?? 1);
    this.#dataDir = options.dataDir;
    this.#select = options.select;
    this.#lossToPlant = options.plant === 'lose-scheduled-rung';
  }

  /** Fires the schedules due at `now`, after any pass already under way. Returns how many were sent. */
  fireDue(now = Date.now()): Promise<number> {
    const pass = this.#passes.then(() => this.#fire(now));
    this.#passes = pass.catch(() => undefined);
    return pass;
  }

  async #fire(now: number): Promise<number> {
    const { data } = await LocalQueueMessage.query
      .byVisibility({ queue: LOCAL_WEBHOOK_SCHEDULES })
      .lte({ visibleAt: visibleAtKey(now), id: '\uffff' })
      .go({ pages: 'all' });
    const select = this.#select;
    const due = select ? data.filter((s) => select(JSON.parse(s.body) as DeliveryMessage)) : data;
    let sent = 0;
    for (const schedule of due) {
      const key = { queue: LOCAL_WEBHOOK_SCHEDULES, visibleAt: schedule.visibleAt, id: schedule.id };
      if (this.#lossToPlant) {
        // The soak's planted fault: a rung the audit must find missing (the sweeper would hide it).
        this.#lossToPlant = false;
        await LocalQueueMessage.delete(key).go();
        logSchedulerEvent(this.#dataDir, 'lost', schedule.id, schedule.body);
        continue;
      }
      // Both drawn on every firing, so that a seed gives the same sequence whatever the rates.
      const targetFails = this.#random() < this.#targetFailureRate;
      const sendsTwice = this.#random() < this.#duplicateRate;
      if (targetFails) {
        logSchedulerEvent(this.#dataDir, 'target-failed', schedule.id, schedule.body);
        continue;
      }
      await this.#send(schedule.body);
      logSchedulerEvent(this.#dataDir, 'fired', schedule.id, schedule.body);
      if (sendsTwice) {
        await this.#send(schedule.body);
        logSchedulerEvent(this.#dataDir, 'fired-again', schedule.id, schedule.body);
      }
      await LocalQueueMessage.delete(key).go();
      sent++;
    }
    return sent;
  }

  /** Sends a schedule's message to the queue, visible at once (whatever time the pass was asked to fire at). */
  async #send(body: string): Promise<void> {
    await LocalQueueMessage.create({
      queue: LOCAL_WEBHOOK_QUEUE,
      visibleAt: visibleAtKey(Date.now()),
      id: randomUUID(),
      body,
      receiveCount: 0,
    }).go();
  }
}

/** A rate of the environment: a number from 0 to 1, 0 when unset. */
function rateOf(env: NodeJS.ProcessEnv, name: string): number {
  const text = env[name];
  if (text === undefined || text === '') return 0;
  const rate = Number(text);
  if (!(rate >= 0 && rate <= 1)) throw new Error(`${name} must be a number from 0 to 1, not ${text}`);
  return rate;
}

/**
 * The Scheduler stand-in as the environment describes it (see the top of this file); `select` narrows
 * it to a test's own schedules.
 */
export function localSchedulerFromEnvironment(
  env: NodeJS.ProcessEnv = process.env,
  select?: LocalSchedulerOptions['select'],
): LocalScheduler {
  const seedText = env.LOCAL_SCHEDULER_SEED;
  const seed = seedText === undefined || seedText === '' ? 1 : Number(seedText);
  if (!Number.isInteger(seed)) throw new Error(`LOCAL_SCHEDULER_SEED must be an integer, not ${seedText}`);
  return new LocalScheduler({
    duplicateRate: rateOf(env, 'LOCAL_SCHEDULER_DUPLICATE_RATE'),
    targetFailureRate: rateOf(env, 'LOCAL_SCHEDULER_TARGET_FAILURE_RATE'),
    seed,
    // Other SOAK_PLANT values plant faults elsewhere; this stand-in knows only its own.
    plant: env.SOAK_PLANT === 'lose-scheduled-rung' ? 'lose-scheduled-rung' : undefined,
    dataDir: env.DATA_DIR,
    ...(select ? { select } : {}),
  });
}

/** This process's Scheduler stand-in, made from the environment on first use. */
let processScheduler: LocalScheduler | undefined;

/**
 * Fires the local schedules due at `now` with this process's Scheduler stand-in (the webhook queue's
 * poller calls it before each batch). Returns how many were sent.
 */
export function fireDueSchedules(now = Date.now()): Promise<number> {
  processScheduler ??= localSchedulerFromEnvironment();
  return processScheduler.fireDue(now);
}
