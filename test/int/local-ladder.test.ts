/**
 * The local ladder alone (scripts/local/adapters/webhook-ladder.ts): the AWS rule, SQS delay up to
 * 15 minutes and a schedule beyond.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { LOCAL_WEBHOOK_QUEUE } from '../../functions/kernel/ports/webhook-ladder.ts';
import {
  LOCAL_WEBHOOK_SCHEDULES,
  LocalScheduler,
  LocalWebhookLadder,
  readSchedulerLog,
} from '../../scripts/local/adapters/webhook-ladder.ts';
import { holding, messageWith } from '../support/webhook-fixtures.ts';

describe('the local ladder', () => {
  it('puts a wait of up to 15 minutes on the queue with its delay, and nothing in the schedules', async () => {
    // Prepare
    const token = randomUUID().replaceAll('-', '');
    const before = Date.now();
    // Act
    await new LocalWebhookLadder().enqueue(messageWith(token), 900_000);
    // Assess
    const queued = await holding(LOCAL_WEBHOOK_QUEUE, [token]);
    expect(queued).toHaveLength(1);
    expect(Number(queued[0]?.visibleAt)).toBeGreaterThanOrEqual(before + 900_000);
    expect(await holding(LOCAL_WEBHOOK_SCHEDULES, [token])).toEqual([]);
  });

  it('makes a longer wait a schedule named after the message, which fires onto the queue when due', async () => {
    // Prepare
    const token = randomUUID().replaceAll('-', '');
    const before = Date.now();
    // Act: a 2-hour rung; the local Scheduler looks before it is due, then after
    await new LocalWebhookLadder().enqueue(messageWith(token), 2 * 3_600_000);
    const queuedAtOnce = await holding(LOCAL_WEBHOOK_QUEUE, [token]);
    const schedules = await holding(LOCAL_WEBHOOK_SCHEDULES, [token]);
    // Firing this test's schedule alone: fired hours ahead, the others of the shared table (other
    // files' schedules) would be sent before their time.
    const scheduler = new LocalScheduler({ select: (m) => m.token === token });
    await scheduler.fireDue(before + 3_600_000);
    const stillScheduled = await holding(LOCAL_WEBHOOK_SCHEDULES, [token]);
    await scheduler.fireDue(Date.now() + 2 * 3_600_000 + 1000);
    // Assess
    expect(queuedAtOnce).toEqual([]);
    expect(schedules.map((s) => s.id)).toEqual([`webhook-${token}`]);
    expect(Number(schedules[0]?.visibleAt)).toBeGreaterThanOrEqual(before + 2 * 3_600_000);
    expect(stillScheduled).toHaveLength(1);
    expect(await holding(LOCAL_WEBHOOK_SCHEDULES, [token])).toEqual([]);
    expect(await holding(LOCAL_WEBHOOK_QUEUE, [token])).toHaveLength(1);
  });

  it('shrinks the 15 minutes with the ladder: a scaled 5-minute rung is queued, a scaled 30-minute one is a schedule, logged', async () => {
    // Prepare: the soak's scale, and a DATA_DIR of the test's own
    const scale = 0.0005;
    const dataDir = mkdtempSync(join(tmpdir(), 'local-ladder-'));
    const ladder = new LocalWebhookLadder({ delayScale: scale, dataDir });
    const fiveMinutes = randomUUID().replaceAll('-', '');
    const thirtyMinutes = randomUUID().replaceAll('-', '');
    // Act
    await ladder.enqueue(messageWith(fiveMinutes), 5 * 60_000 * scale);
    await ladder.enqueue(messageWith(thirtyMinutes), 30 * 60_000 * scale);
    // Assess: as in AWS at scale 1, and only the schedule is in the Scheduler's log
    expect(await holding(LOCAL_WEBHOOK_QUEUE, [fiveMinutes])).toHaveLength(1);
    expect(await holding(LOCAL_WEBHOOK_SCHEDULES, [fiveMinutes])).toEqual([]);
    expect(await holding(LOCAL_WEBHOOK_QUEUE, [thirtyMinutes])).toEqual([]);
    expect((await holding(LOCAL_WEBHOOK_SCHEDULES, [thirtyMinutes])).map((s) => s.id)).toEqual([
      `webhook-${thirtyMinutes}`,
    ]);
    const log = readSchedulerLog(dataDir);
    expect(log.map(({ kind, schedule }) => ({ kind, schedule }))).toEqual([
      { kind: 'created', schedule: `webhook-${thirtyMinutes}` },
    ]);
    expect(log[0]?.body.token).toBe(thirtyMinutes);
  });
});
