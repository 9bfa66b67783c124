import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { BedrockRuntimeClient, ConverseCommand } from '@aws-sdk/client-bedrock-runtime';
import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { SESv2Client, SendEmailCommand } from '@aws-sdk/client-sesv2';
import { DeleteQueueCommand, SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { describe, expect, it } from 'vitest';
import { normalizePhone, tierOf } from '../../functions/domain/leads.ts';
import { ScoreOutput } from '../../functions/domain/scoring.ts';
import { S3CatalogueStore } from '../../functions/kernel/ports/catalogue-store.ts';
import { routes } from '../../functions/routes.ts';
import { workers } from '../../functions/workers.ts';
import { awsEndpointEnv, responderQueueUrl, startAwsResponder } from '../../scripts/bench/aws-responder.ts';
import { runChild, startChild } from '../../scripts/bench/child.ts';
import { asciiWord, leadAt, RARE_SURNAMES, uuidOf } from '../../scripts/bench/data.ts';
import { COST_COLUMNS, type CostResult, checksOf } from '../../scripts/bench/dynamo-costs.ts';
import { costOf, indexWrites, unitsOf, withConsumedCapacity } from '../../scripts/bench/dynamo-recorder.ts';
import { pathOf } from '../../scripts/bench/sections/cold-fixture.ts';
import {
  COLD_START_TARGET,
  coldRow,
  coldStart,
  exportsHandler,
  handlerEntries,
  servicesCalled,
  successful,
} from '../../scripts/bench/sections/cold-start.ts';
import { median, percentile, ratio, summarize, table } from '../../scripts/bench/stats.ts';

/** What a population holds: Leads by status, owner and tier, and the archived ones. */
function population(leads: ReturnType<typeof leadAt>[]) {
  const count = (key: (l: (typeof leads)[number]) => string) => {
    const by: Record<string, number> = {};
    for (const l of leads) by[key(l)] = (by[key(l)] ?? 0) + 1;
    return by;
  };
  return {
    count: leads.length,
    byStatus: count((l) => l.status),
    byOwner: count((l) => l.ownerKey),
    byTier: count((l) => l.tierKey),
    archived: leads.filter((l) => !l.isActive).length,
    withNotes: leads.filter((l) => l.notes).length,
  };
}

describe('bench statistics', () => {
  it('takes the midpoint for an even count and the middle value for an odd one', () => {
    expect(median([4, 1, 3, 2])).toBe(2.5);
    expect(median([5, 1, 3])).toBe(3);
  });

  it('uses nearest-rank percentiles', () => {
    const sorted = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10];
    expect(percentile(sorted, 90)).toBe(9);
    expect(percentile(sorted, 99)).toBe(10);
    expect(percentile(sorted, 0)).toBe(1);
  });

  it('summarises unsorted samples', () => {
    expect(summarize([30, 10, 20])).toMatchObject({ count: 3, median: 20, p90: 30, max: 30 });
  });

  it('divides by the floor and refuses to invent a figure from a missing or zero one', () => {
    expect(ratio(115, 100)).toBeCloseTo(1.15);
    expect(ratio(50, 0)).toBeNaN();
    expect(ratio(Number.NaN, 100)).toBeNaN();
    expect(ratio(50, Number.NaN)).toBeNaN();
  });
});

describe('the bench tables and bounds', () => {
  const result = { label: 'GET x', readUnits: 1, sequentialRoundTrips: 3, latencyMs: Number.NaN, checks: [] };

  it('prints a markdown table a line a row, the first column left-aligned', () => {
    const rows = [
      { label: 'a', n: 1 },
      { label: 'b', n: 22 },
    ];
    expect(
      table<(typeof rows)[number]>(
        [
          ['row', (r) => r.label],
          ['n', (r) => r.n],
        ],
        rows,
      ),
    ).toEqual(['| row | n |', '| --- | ---: |', '| a | 1 |', '| b | 22 |']);
  });

  it('checks each bound against its figure, an unmeasured one failing', () => {
    // Act
    const checks = checksOf(result as unknown as CostResult, { rcu: 1, seq: 2, ms: 25 });
    // Assess
    expect(checks).toEqual(['RCU ≤ 1 pass', 'seq ≤ 2 FAIL', 'ms ≤ 25 FAIL']);
    expect(COST_COLUMNS.checks[1]({ ...result, checks } as unknown as CostResult)).toBe(checks.join('; '));
  });
});

describe('the child-process runner', () => {
  const dir = mkdtempSync(join(tmpdir(), 'bench-child-'));
  const child = resolve('scripts/bench/child.ts');
  const script = (name: string, body: string) => {
    writeFileSync(join(dir, name), `import { answer, childInput } from '${child}';\n${body}\n`);
    return join(dir, name);
  };

  it("answers a job's input with its answer; a failed job rejects, naming its exit code", async () => {
    // Prepare: a job whose handler logs on stdout before it answers (the report is the bench's stdout)
    const doubler = script(
      'double.ts',
      'const { n } = await childInput();\nconsole.log("noise");\nanswer({ twice: n * 2 });',
    );
    const failing = script('fail.ts', 'await childInput();\nprocess.exit(3);');
    // Act / Assess
    expect(await runChild(doubler, { n: 21 })).toEqual({ twice: 42 });
    await expect(runChild(failing, {})).rejects.toThrow(/fail\.ts exited 3/);
    // A job that answers, then fails, failed.
    const late = script('late.ts', 'await childInput();\nprocess.send?.({ ok: 1 }, () => process.exit(2));');
    await expect(runChild(late, {})).rejects.toThrow(/late\.ts exited 2/);
  });

  it("gives a server's first answer while it runs, and stops it", async () => {
    const server = startChild<{ url: string }>(
      script('server.ts', 'await childInput();\nanswer({ url: "u" }, false);\nsetInterval(() => {}, 1000);'),
      {},
    );
    expect(await server.first).toEqual({ url: 'u' });
    await server.stop();
  });
});

describe('the cold-start section', () => {
  const bundle = (name: string, kb = 300) => ({
    name,
    entry: `${name}.ts`,
    kind: 'http' as const,
    kb,
    gzipKb: kb / 4,
  });
  /** Samples whose CPU time is half their wall time, so the CPU ratios equal the wall-clock ones. */
  const samples = (loads: number[], firsts: number[], status = '200') =>
    loads.map((ms, i) => ({
      importMs: ms,
      firstMs: firsts[i] ?? 0,
      importCpuMs: ms / 2,
      firstCpuMs: (firsts[i] ?? 0) / 2,
      status,
    }));
  const floor = samples([90, 100, 110], [190, 200, 210]);

  it('judges each function by its medians over the floor measured in the same passes', () => {
    // Act: one function just inside both targets, one over on first response
    const inside = coldRow(bundle('getThing'), samples([100, 115, 400], [200, 230, 900]), floor);
    const over = coldRow(
      bundle('putThing'),
      [...samples([80, 90], [200, 240]), ...samples([100], [250], '422')],
      floor,
    );

    // Assess
    expect(inside).toMatchObject({
      ratios: { moduleLoad: 1.15, firstResponse: 1.15 },
      ok: { moduleLoad: true, firstResponse: true, answers: true },
      moduleLoad: { median: 115, p90: 400, count: 3 },
    });
    expect(over).toMatchObject({
      ratios: { moduleLoad: 0.9, firstResponse: 1.2 },
      ok: { moduleLoad: true, firstResponse: false, answers: false },
      statuses: ['200', '422'],
    });
    expect(COLD_START_TARGET).toBe(1.15);
  });

  it('fails a ratio it could not measure, and counts only 2xx and clean batches as answers', () => {
    expect(coldRow(bundle('noFloor'), samples([100], [200]), []).ok).toMatchObject({ moduleLoad: false });
    expect(successful(['200', '201'])).toBe(true);
    expect(successful(['ok'])).toBe(true);
    expect(successful(['200', '404'])).toBe(false);
    expect(successful(['1 failed'])).toBe(false);
    expect(successful(['threw: boom'])).toBe(false);
    expect(successful([])).toBe(false);
  });

  it('prints a mark per target, names the functions that fail, and the AWS services each called', () => {
    // Prepare
    const slow = coldRow(bundle('slowThing'), samples([130], [210]), samples([100], [200]));
    const report = {
      runs: 1,
      floor: coldRow(bundle('floor'), floor, floor),
      rows: [{ ...slow, sent: ['SESv2'] }],
    };
    // Act
    const text = coldStart.render(report).join('\n');
    // Assess
    expect(text).toMatch(/\| slowThing \| .* \| 1\.30× \| FAIL \| .* \| 1\.05× \| pass \| 200 \+SESv2 \|/);
    expect(text).toContain('Module load ≤ 1.15× the floor: 0/1 pass (FAIL: slowThing)');
    expect(text).toContain('First response ≤ 1.15× the floor: 1/1 pass (FAIL: none)');
    expect(servicesCalled({ SQS: 1 }, { SQS: 2, SESv2: 1, refused: 0 })).toEqual(['SESv2', 'SQS']);
  });

  it('measures every route and worker, named as the stacks name them, after the floor', () => {
    const entries = handlerEntries();
    expect(entries[0]).toMatchObject({ name: 'floor', kind: 'floor' });
    expect(entries.slice(1).map((e) => e.name)).toEqual([
      ...routes.map((r) => r.operationId),
      ...workers.map((w) => w.name),
    ]);
    expect(exportsHandler('export async function handler(event) {}')).toBe(true);
    expect(exportsHandler('export const handler = middy(core);')).toBe(true);
    expect(exportsHandler('const handler = 1;\nexport { handler };')).toBe(true);
    expect(exportsHandler('export function handlerOf() {}')).toBe(false);
  });

  it("fills a route's path from the fixture's ids by parameter name", () => {
    const ids = { agent_id: 'g1', lead_id: 'l1' };
    expect(pathOf({ path: '/v1/agents/{agent_id}' }, ids)).toEqual({ agent_id: 'g1' });
    expect(pathOf({ path: '/v1/leads/{lead_id}/things/{thing_id}' }, ids)).toEqual({
      lead_id: 'l1',
      thing_id: 'bench-thing_id',
    });
    expect(pathOf({ path: '/v1/agents' }, ids)).toEqual({});
  });
});

describe('the bench command line', () => {
  const bench = (...args: string[]) =>
    spawnSync(process.execPath, ['scripts/bench/main.ts', ...args], { encoding: 'utf8', timeout: 60_000 });

  it('lists every section in its usage, the scale runs as run when named', () => {
    const { status, stdout } = bench('--help');
    expect(status).toBe(0);
    expect(stdout).toContain(
      'cold-start, cost, load, search, leads (when named), site (when named), import (when named)',
    );
  });

  it('refuses an unknown section or a bad number with one line naming it, exit 2, before anything runs', () => {
    for (const [args, line] of [
      [['--only', 'cold-start,coldstart'], 'error: --only: no section named "coldstart"'],
      [['--runs', '0'], 'error: --runs must be a whole number of at least 1'],
      [['--only', 'leads', '--leads', '10', '--archived', '20'], 'error: --archived cannot exceed --leads'],
      [['--throttle-rate', '2'], 'error: --throttle-rate must be from 0 to 1'],
    ] as const) {
      const { status, stderr } = bench(...args);
      expect(status, stderr).toBe(2);
      expect(stderr.split('\n')[0]).toBe(line);
    }
  });
});

describe('DynamoDB calls', () => {
  it('asks for consumed capacity where the operation reports it, and keeps what the caller asked', () => {
    expect(withConsumedCapacity('GetItem', { TableName: 't' })).toEqual({
      TableName: 't',
      ReturnConsumedCapacity: 'TOTAL',
    });
    const indexes = { TableName: 't', ReturnConsumedCapacity: 'INDEXES' };
    expect(withConsumedCapacity('Query', indexes)).toBe(indexes);
    expect(withConsumedCapacity('DescribeTable', { TableName: 't' })).toEqual({ TableName: 't' });
  });

  it('books units as DynamoDB splits them, or by the kind of operation', () => {
    expect(unitsOf('GetItem', { ConsumedCapacity: { CapacityUnits: 0.5 } })).toEqual({ read: 0.5, write: 0 });
    expect(unitsOf('UpdateItem', { ConsumedCapacity: { CapacityUnits: 1 } })).toEqual({ read: 0, write: 1 });
    const transaction = { ConsumedCapacity: [{ CapacityUnits: 4, WriteCapacityUnits: 4 }] };
    expect(unitsOf('TransactWriteItems', transaction)).toEqual({ read: 0, write: 4 });
    expect(unitsOf('GetItem', {})).toEqual({ read: 0, write: 0 });
  });

  it('sums a request: round trips, units, transaction items, items read and kept, local port writes', () => {
    const cost = costOf({
      rounds: 2,
      calls: [
        {
          operation: 'GetItem',
          input: {},
          output: { ConsumedCapacity: { CapacityUnits: 0.5 } },
          status: 200,
          round: 1,
        },
        {
          operation: 'Query',
          input: {},
          output: { Count: 3, ScannedCount: 5, ConsumedCapacity: { CapacityUnits: 1 } },
          status: 200,
          round: 2,
        },
        {
          operation: 'TransactWriteItems',
          input: { TransactItems: [{ Put: { Item: { pk: { S: 'a' }, gsi1pk: { S: 'g' } } } }, {}] },
          output: { ConsumedCapacity: [{ CapacityUnits: 2 }] },
          status: 200,
          round: 2,
        },
        {
          operation: 'PutItem',
          input: { Item: { __edb_e__: { S: 'outboxEmail' } } },
          output: { ConsumedCapacity: { CapacityUnits: 1 } },
          status: 200,
          round: 2,
        },
      ],
    });
    expect(cost).toEqual({
      roundTrips: 4,
      sequentialRoundTrips: 2,
      operations: ['GetItem', 'Query', 'TransactWriteItems', 'PutItem'],
      readUnits: 1.5,
      writeUnits: 3,
      transactItems: 2,
      transactIndexWrites: 1,
      queryItemsRead: 5,
      queryItemsReturned: 3,
      localPortWrites: 1,
      billedReadUnits: 1.5,
      billedWriteUnits: 5,
    });
  });
});

describe('transaction index writes', () => {
  it('counts one entry for a Put carrying an index key and two for an Update moving one', () => {
    expect(indexWrites({ Put: { Item: { pk: 'a', sk: 'b', gsi1pk: 'g', gsi1sk: 's' } } })).toBe(1);
    expect(indexWrites({ Put: { Item: { pk: 'a', sk: 'b' } } })).toBe(0);
    expect(
      indexWrites({
        Update: {
          UpdateExpression: 'SET #a = :a, #b = :b',
          ExpressionAttributeNames: { '#a': 'title', '#b': 'gsi1sk' },
        },
      }),
    ).toBe(2);
    expect(
      indexWrites({
        Update: { UpdateExpression: 'SET #a = :a', ExpressionAttributeNames: { '#a': 'title' } },
      }),
    ).toBe(0);
  });
});
describe('the leads bench population', () => {
  const options = {
    tenantId: 'tenant-1',
    count: 5000,
    agentIds: ['a1', 'a2', 'a3', 'a4', 'a5'],
    now: new Date(),
  };
  const leads = Array.from({ length: options.count }, (_, i) => leadAt(i, options));

  it('is the same on every run', () => {
    expect(leadAt(42, options)).toEqual(leads[42]);
    expect(uuidOf(20_000, 42)).toBe(leads[42]?.id);
  });

  it('gives every Lead its own UUID, email and E.164 phone, and a way to reach it', () => {
    const ids = new Set(leads.map((l) => l.id));
    const emails = leads.flatMap((l) => (l.email ? [l.email] : []));
    const phones = leads.flatMap((l) => (l.phone ? [l.phone] : []));
    expect(ids.size).toBe(leads.length);
    expect(
      [...ids].every((id) => /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-8[0-9a-f]{3}-[0-9a-f]{12}$/.test(id)),
    ).toBe(true);
    expect(new Set(emails).size).toBe(emails.length);
    expect(emails.every((e) => /^[a-z0-9.]+@[a-z.]+$/.test(e))).toBe(true);
    expect(new Set(phones).size).toBe(phones.length);
    expect(phones.every((p) => normalizePhone(p, 'ES') === p)).toBe(true);
    expect(leads.every((l) => l.email || l.phone)).toBe(true);
  });

  it('orders Leads by index and keeps derived values consistent', () => {
    expect(leads.every((l, i) => i === 0 || (leads[i - 1]?.updatedAt ?? '') < l.updatedAt)).toBe(true);
    expect(leads.every((l) => l.createdAt <= l.updatedAt)).toBe(true);
    expect(leads.every((l) => l.ownerKey === (l.assignedAgentId ?? 'unassigned'))).toBe(true);
    expect(leads.every((l) => l.tierKey === (l.score === undefined ? 'unscored' : tierOf(l.score)))).toBe(
      true,
    );
  });

  it('spreads statuses, owners and tiers, with accents, notes and archived Leads', () => {
    // Act
    const p = population(leads);
    // Assess
    for (const status of Object.keys(p.byStatus)) expect(p.byStatus[status]).toBeGreaterThan(250);
    expect(Object.keys(p.byOwner)).toHaveLength(6);
    expect((p.byOwner.unassigned ?? 0) / p.count).toBeCloseTo(0.15, 1);
    expect(Object.keys(p.byTier).sort()).toEqual(['cold', 'hot', 'moderate', 'unscored', 'warm']);
    expect(p.archived).toBeGreaterThan(50);
    expect(p.withNotes).toBeGreaterThan(250);
    expect(leads.some((l) => (l.notes?.length ?? 0) > 500)).toBe(true);
    expect(
      leads.filter(
        (l) => l.name !== l.name.normalize('NFKD').replace(/[\u0300-\u036f]/g, '') || /[łøßŁØ]/.test(l.name),
      ).length / p.count,
    ).toBeGreaterThan(0.3);
    expect(leads.filter((l) => l.name.includes(RARE_SURNAMES.rare))).toHaveLength(2);
    expect(leads.filter((l) => l.name.includes(RARE_SURNAMES.rareBehindCommonPrefix))).toHaveLength(2);
  });

  it('folds names to ASCII for email local parts', () => {
    expect(asciiWord('Łukasz')).toBe('lukasz');
    expect(asciiWord('Søren')).toBe('soren');
    expect(asciiWord("O'Brien")).toBe('obrien');
    expect(asciiWord('Weiß')).toBe('weiss');
  });
});
describe('the cold-start AWS responder', () => {
  it('names the endpoint variables as the SDK reads them from each serviceId', () => {
    expect(
      Object.keys(awsEndpointEnv({ http1: 'http://127.0.0.1:1', http2: 'http://127.0.0.1:2' })).sort(),
    ).toEqual([
      'AWS_ENDPOINT_URL_BEDROCK_RUNTIME',
      'AWS_ENDPOINT_URL_S3',
      'AWS_ENDPOINT_URL_SECRETS_MANAGER',
      'AWS_ENDPOINT_URL_SESV2',
      'AWS_ENDPOINT_URL_SQS',
    ]);
  });

  it('counts which services a probe called', () => {
    expect(servicesCalled({ SQS: 1 }, { SQS: 2, SESv2: 1, refused: 0 })).toEqual(['SESv2', 'SQS']);
  });

  it('answers the SDK clients the functions use with responses they accept, and refuses the rest', async () => {
    const silent = { debug() {}, info() {}, warn() {}, error() {} };
    // Arrange: the real SDK clients, pointed at the responder as the cold processes are.
    const responder = await startAwsResponder();
    const env = awsEndpointEnv(responder.origins);
    const options = (variable: string) => ({
      region: 'us-east-1',
      endpoint: env[variable],
      credentials: { accessKeyId: 'bench', secretAccessKey: 'bench' },
    });
    try {
      // No endpoint in code, as in the functions: the SQS client sends to the queue URL's host.
      const sqs = new SQSClient({ ...options('AWS_ENDPOINT_URL_SQS'), endpoint: undefined, logger: silent });
      const ses = new SESv2Client(options('AWS_ENDPOINT_URL_SESV2'));
      const bedrock = new BedrockRuntimeClient(options('AWS_ENDPOINT_URL_BEDROCK_RUNTIME'));
      const secrets = new SecretsManagerClient(options('AWS_ENDPOINT_URL_SECRETS_MANAGER'));
      // Act
      const sent = await sqs.send(
        new SendMessageCommand({
          QueueUrl: responderQueueUrl(responder.origins),
          MessageBody: '{"a":"ñ"}',
        }),
      );
      const mail = await ses.send(
        new SendEmailCommand({
          FromEmailAddress: 'a@example.com',
          Destination: { ToAddresses: ['b@example.com'] },
          Content: { Simple: { Subject: { Data: 's' }, Body: { Text: { Data: 't' } } } },
        }),
      );
      const scored = await bedrock.send(
        new ConverseCommand({
          modelId: 'eu.anthropic.claude-bench-v1:0',
          system: [{ text: 'You score real-estate leads for an agency.' }],
          messages: [{ role: 'user', content: [{ text: '{}' }] }],
        }),
      );
      const secret = await secrets.send(new GetSecretValueCommand({ SecretId: 'arn:aws:secretsmanager:x' }));
      // The catalogue snapshot's store as the site functions and the rebuilder bind it: none stored yet,
      // then a first one written under its condition (If-None-Match: none there).
      const catalogue = new S3CatalogueStore({
        bucket: 'photos-bench',
        client: options('AWS_ENDPOINT_URL_S3'),
      });
      const snapshot = await catalogue.read('tenant-1');
      const written = await catalogue.write('tenant-1', Buffer.from([0x1f, 0x8b, 0xff]), null);
      const refused = sqs.send(new DeleteQueueCommand({ QueueUrl: responderQueueUrl(responder.origins) }));
      // Assess: the SDK checked the MD5 of the body; the model's text passes the scoring schema.
      await expect(refused).rejects.toThrow(/does not answer/);
      expect(sent.MessageId).toBeTruthy();
      expect(mail.MessageId).toBeTruthy();
      const text = scored.output?.message?.content?.[0]?.text ?? '';
      expect(ScoreOutput.safeParse(JSON.parse(text)).success).toBe(true);
      expect(secret.SecretString?.length).toBeGreaterThanOrEqual(16);
      expect(snapshot).toBeUndefined();
      expect(written).toBe(true);
      expect(responder.calls()).toEqual({
        S3: 2,
        SQS: 1,
        SESv2: 1,
        'Bedrock Runtime': 1,
        'Secrets Manager': 1,
        refused: 1,
      });
    } finally {
      await responder.stop();
    }
  });
});
