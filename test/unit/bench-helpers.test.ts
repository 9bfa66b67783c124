import { BedrockRuntimeClient, ConverseCommand } from '@aws-sdk/client-bedrock-runtime';
import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { SESv2Client, SendEmailCommand } from '@aws-sdk/client-sesv2';
import { DeleteQueueCommand, SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import type { Metafile } from 'esbuild';
import { describe, expect, it } from 'vitest';
import { normalizePhone, tierOf } from '../../functions/domain/leads.ts';
import { ScoreOutput } from '../../functions/domain/scoring.ts';
import { routes } from '../../functions/routes.ts';
import { awsEndpointEnv, responderQueueUrl, startAwsResponder } from '../../scripts/bench/aws-responder.ts';
import { camelName, composition, exportsHandler, handlerEntries } from '../../scripts/bench/bundles.ts';
import { fallbackRequest, servicesCalled } from '../../scripts/bench/cold-start.ts';
import { costOf, indexWrites } from '../../scripts/bench/dynamo-costs.ts';
import { operationOf, unitsOf, withConsumedCapacity } from '../../scripts/bench/dynamo-recorder.ts';
import {
  asciiWord,
  describePopulation,
  itemSize,
  leadAt,
  RARE_SURNAMES,
  uuidOf,
} from '../../scripts/bench/lead-data.ts';
import {
  coldStartSection,
  formatLoad,
  formatRatio,
  mark,
  renderColdStart,
  successful,
  TARGETS,
} from '../../scripts/bench/report.ts';
import {
  median,
  parseSections,
  percentile,
  ratio,
  SECTIONS,
  summarize,
  withinRatio,
} from '../../scripts/bench/stats.ts';

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
    expect(summarize([30, 10, 20])).toMatchObject({ count: 3, min: 10, median: 20, max: 30 });
  });
});

describe('ratios to the floor', () => {
  it('divides by the floor and refuses to invent a figure from a missing or zero one', () => {
    expect(ratio(115, 100)).toBeCloseTo(1.15);
    expect(ratio(50, 0)).toBeNaN();
    expect(ratio(Number.NaN, 100)).toBeNaN();
    expect(ratio(50, Number.NaN)).toBeNaN();
  });

  it('passes at the ceiling, fails above it, and fails an unmeasured ratio', () => {
    expect(withinRatio(1.15, 1.15)).toBe(true);
    expect(withinRatio(1.151, 1.15)).toBe(false);
    expect(withinRatio(Number.NaN, 1.15)).toBe(false);
  });

  it('prints ratios, marks and load averages for the table', () => {
    expect(formatRatio(1.0749)).toBe('1.07×');
    expect(formatRatio(Number.NaN)).toBe('-');
    expect(mark(true)).toBe('pass');
    expect(mark(false)).toBe('FAIL');
    expect(formatLoad([1.5, 2, 13.678])).toBe('1.50 / 2.00 / 13.68');
    expect(formatLoad([])).toBe('-');
  });

  it('counts only 2xx statuses and clean batches as successful answers', () => {
    expect(successful(['200', '201'])).toBe(true);
    expect(successful(['ok'])).toBe(true);
    expect(successful(['200', '404'])).toBe(false);
    expect(successful(['1 failed'])).toBe(false);
    expect(successful(['threw: boom'])).toBe(false);
    expect(successful([])).toBe(false);
  });
});

describe('the cold-start section', () => {
  const bundle = (name: string, kind: 'floor' | 'http', kb: number) => ({
    name,
    kind,
    entry: `${name}.ts`,
    file: `${name}.mjs`,
    kb,
    gzipKb: kb / 4,
    lazyKb: 0,
    composition: [],
  });
  const figures = (loads: number[], firsts: number[], statuses = ['200'], sent: string[] = []) => ({
    moduleLoad: summarize(loads),
    firstResponse: summarize(firsts),
    // CPU time: half the wall time here, so the CPU ratios equal the wall-clock ones.
    moduleLoadCpu: summarize(loads.map((ms) => ms / 2)),
    firstResponseCpu: summarize(firsts.map((ms) => ms / 2)),
    statuses,
    sent,
    genericEvent: false,
  });

  it('judges each function by its medians over the floor measured in the same run', () => {
    // Arrange: a floor at 100 ms / 200 ms; one function just inside, one over on first response.
    const bundles = [
      bundle('floor', 'floor', 600),
      bundle('getThing', 'http', 300),
      bundle('putThing', 'http', 900),
    ];
    const measured = new Map([
      ['floor', figures([90, 100, 110], [190, 200, 210])],
      ['getThing', figures([100, 115, 400], [200, 230, 900])],
      ['putThing', figures([80, 90, 100], [200, 240, 250], ['201', '422'])],
    ]);
    // Act
    const section = coldStartSection(bundles, measured, 3);
    // Assess
    expect(section.floor).toMatchObject({ kb: 600, moduleLoadMs: { median: 100, p90: 110, runs: 3 } });
    const [get, put] = section.rows;
    expect(get).toMatchObject({
      name: 'getThing',
      ratios: { kb: 0.5, moduleLoad: 1.15, firstResponse: 1.15 },
      cpuRatios: { moduleLoad: 1.15, firstResponse: 1.15 },
      moduleLoadOk: true,
      firstResponseOk: true,
      statusOk: true,
    });
    expect(get?.moduleLoadMs).toEqual({ median: 115, p90: 400, runs: 3 });
    expect(put).toMatchObject({
      ratios: { kb: 1.5, moduleLoad: 0.9, firstResponse: 1.2 },
      moduleLoadOk: true,
      firstResponseOk: false,
      statusOk: false,
    });
  });

  it('prints a pass/fail mark per target and names the functions that fail', () => {
    const bundles = [bundle('floor', 'floor', 600), bundle('slowThing', 'http', 300)];
    const measured = new Map([
      ['floor', figures([100], [200])],
      ['slowThing', figures([130], [210])],
    ]);
    const text = renderColdStart(coldStartSection(bundles, measured, 1), TARGETS).join('\n');
    expect(text).toMatch(/slowThing .* 1\.30×\s+FAIL .* 1\.05×\s+pass/);
    expect(text).toContain('Module load ≤ 1.15× the floor: 0/1 pass (FAIL: slowThing)');
    expect(text).toContain('Import + first response ≤ 1.15× the floor: 1/1 pass');
  });

  it('lists the AWS services a function called beside its answer', () => {
    const bundles = [bundle('floor', 'floor', 600), bundle('sendThing', 'http', 300)];
    const measured = new Map([
      ['floor', figures([100], [200])],
      ['sendThing', figures([100], [200], ['200'], ['SESv2', 'Secrets Manager'])],
    ]);
    const section = coldStartSection(bundles, measured, 1);
    expect(section.rows[0]).toMatchObject({ sent: ['SESv2', 'Secrets Manager'], statusOk: true });
    expect(renderColdStart(section, TARGETS).join('\n')).toMatch(/sendThing .* 200 \+SESv2\+Secrets Manager/);
  });

  it('refuses to judge without the floor', () => {
    const bundles = [bundle('getThing', 'http', 300)];
    expect(() => coldStartSection(bundles, new Map([['getThing', figures([1], [1])]]), 1)).toThrow(/floor/);
  });
});

describe('the functions the bench measures', () => {
  it('has every route of the route table and every async handler module, named as the stack names them', () => {
    const entries = handlerEntries();
    const names = entries.map((e) => e.name);
    expect(names).toEqual(expect.arrayContaining(routes.map((r) => r.operationId)));
    expect(names).toEqual(expect.arrayContaining(['streamConsumer', 'aiWorker', 'aiResume']));
    expect(entries.filter((e) => e.kind === 'http')).toHaveLength(routes.length);
  });

  it('recognises a module that exports a handler, and names a new one by its file', () => {
    expect(exportsHandler('export async function handler(event) {}')).toBe(true);
    expect(exportsHandler('export const handler = middy(core);')).toBe(true);
    expect(exportsHandler('const handler = 1;\nexport { handler };')).toBe(true);
    expect(exportsHandler('export function handlerOf() {}')).toBe(false);
    expect(camelName('functions/workers/webhook-delivery.ts')).toBe('webhookDelivery');
  });

  it('fills a route it has no case for from the fixture, by path parameter name', () => {
    const fx = {
      propertyId: 'p1',
      leadId: 'l1',
      inquiryId: 'i1',
      activityId: 'a1',
      agentId: 'g1',
      internalRef: 'REF',
    } as Parameters<typeof fallbackRequest>[1];
    expect(fallbackRequest({ method: 'GET', path: '/v1/agents/{agent_id}' }, fx)).toEqual({
      pathParameters: { agent_id: 'g1' },
    });
    expect(fallbackRequest({ method: 'POST', path: '/v1/leads/{lead_id}/things/{thing_id}' }, fx)).toEqual({
      pathParameters: { lead_id: 'l1', thing_id: 'bench-thing_id' },
      body: {},
    });
    expect(fallbackRequest({ method: 'GET', path: '/v1/agents' }, fx)).toEqual({});
  });
});

describe('bench sections', () => {
  it('runs every section by default and only the named ones with --only', () => {
    expect([...parseSections(undefined)]).toEqual([...SECTIONS]);
    expect([...parseSections('cold-start')]).toEqual(['cold-start']);
    expect([...parseSections(' costs, load ')]).toEqual(['costs', 'load']);
  });

  it('refuses an unknown section', () => {
    expect(() => parseSections('cold-start,coldstart')).toThrow(
      /--only takes cold-start, costs, load, leads/,
    );
    expect(() => parseSections(',')).toThrow(/--only/);
  });
});

describe('DynamoDB calls read on the wire', () => {
  it('names the operation from its X-Amz-Target', () => {
    expect(operationOf('DynamoDB_20120810.TransactWriteItems')).toBe('TransactWriteItems');
    expect(operationOf(undefined)).toBe('unknown');
  });

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
    expect(
      unitsOf('TransactWriteItems', { ConsumedCapacity: [{ CapacityUnits: 4, WriteCapacityUnits: 4 }] }),
    ).toEqual({ read: 0, write: 4 });
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
      transactions: 1,
      transactItems: 2,
      transactReportedUnits: 2,
      transactIndexWrites: 1,
      queryItemsRead: 5,
      queryItemsReturned: 3,
      localPortWrites: 1,
    });
  });
});

describe('bundle composition', () => {
  it('groups the output by package, largest first, and names a dominant sub-folder', () => {
    // Arrange
    const output = {
      bytes: 0,
      imports: [],
      exports: [],
      entryPoint: 'functions/http/x.ts',
      inputs: {
        'node_modules/zod/v4/locales/he.js': { bytesInOutput: 600 },
        'node_modules/zod/v4/core/schemas.js': { bytesInOutput: 200 },
        'node_modules/@smithy/core/dist-es/index.js': { bytesInOutput: 100 },
        'functions/http/x.ts': { bytesInOutput: 100 },
      },
    } as unknown as Metafile['outputs'][string];
    // Act
    const shares = composition(output);
    // Assess
    expect(shares.map((s) => s.name)).toEqual(['zod', '@smithy/core', '(project)']);
    expect(shares[0]).toMatchObject({ percent: 80, largestFolder: { folder: 'v4/locales' } });
    expect(shares[1]?.largestFolder).toBeUndefined();
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
    const p = describePopulation(leads);
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

describe('DynamoDB item size', () => {
  it('counts names and values by the billing rules', () => {
    // pk 2+2, n 1+(3+1), b 1+1, l 1+3+(1+1), m 1+3+(1+1+1) = 24; ü is 2 bytes
    expect(itemSize({ pk: 'ab', n: 12345, b: true, l: ['x'], m: { k: 'v' } })).toBe(24);
    expect(itemSize({ s: 'ü' })).toBe(3);
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
      const refused = sqs.send(new DeleteQueueCommand({ QueueUrl: responderQueueUrl(responder.origins) }));
      // Assess: the SDK checked the MD5 of the body; the model's text passes the scoring schema.
      await expect(refused).rejects.toThrow(/does not answer/);
      expect(sent.MessageId).toBeTruthy();
      expect(mail.MessageId).toBeTruthy();
      const text = scored.output?.message?.content?.[0]?.text ?? '';
      expect(ScoreOutput.safeParse(JSON.parse(text)).success).toBe(true);
      expect(secret.SecretString?.length).toBeGreaterThanOrEqual(16);
      expect(responder.calls()).toEqual({
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
