/**
 * After a deploy: one call through each AWS path of the service, black-box over HTTP, each printed
 * as a PASS/FAIL line with its timing. Exit code 0 only when every step passes.
 *
 *   npm run smoke -- --url https://abc123.execute-api.eu-west-1.amazonaws.com --key svc_live_…
 *     [--scoring-timeout-seconds 120]
 *
 * The paths: a listing write (DynamoDB transaction) and read; an ingest that assigns the listing's
 * Agent as Lead Owner and emails them (SES) and queues scoring (stream consumer → SQS → AI worker →
 * Bedrock), confirmed by polling the Lead until `scored_at` is set; a criteria write with
 * `place_codes` and the Lead's linked listings and matches (BatchGetItem). What it creates is
 * archived at the end (nothing is hard-deleted through the interface). The key needs
 * properties:write, leads:read and leads:write (a demo or ops key with every scope will do).
 */
import { parseArgs } from 'node:util';
import { usageText } from './command-line.ts';

/** A step's failure, with the line to print. */
class StepFailure extends Error {}

interface Answer {
  status: number;
  body: unknown;
  text: string;
}

interface Options {
  url: string;
  key: string;
  scoringTimeoutMs: number;
}

const REQUEST_TIMEOUT_MS = 30_000;
const POLL_INTERVAL_MS = 2_000;

const SMOKE_COMMAND_LINE = {
  usage: 'npm run smoke -- --url URL --key KEY [options]',
  summary:
    'Walks a deployed (or local) API through one listing and one Lead with a secret key, step by step, and exits non-zero naming the first step that fails (docs/deploy.md).',
  options: {
    url: { type: 'string' },
    key: { type: 'string' },
    'scoring-timeout-seconds': { type: 'string' },
  },
  help: {
    url: 'the API base URL (https://, or http:// for a local stack) (required)',
    key: 'a secret key with properties:write, leads:read and leads:write (required)',
    'scoring-timeout-seconds': 'how long to wait for the Lead to be scored (default 120)',
  },
} as const;

function usage(message: string): never {
  process.stderr.write(`error: ${message}\n\n${usageText(SMOKE_COMMAND_LINE)}`);
  process.exit(2);
}

function readOptions(argv: string[]): Options {
  if (argv.includes('--help') || argv.includes('-h')) {
    process.stdout.write(usageText(SMOKE_COMMAND_LINE));
    process.exit(0);
  }
  let parsed: ReturnType<typeof parseArgs<{ options: Record<string, { type: 'string' }> }>>;
  try {
    parsed = parseArgs({ args: argv, options: SMOKE_COMMAND_LINE.options, strict: true });
  } catch (error) {
    usage((error as Error).message);
  }
  const { url, key } = parsed.values;
  const timeout = Number(parsed.values['scoring-timeout-seconds'] ?? '120');
  if (!url) usage('--url is required');
  if (!key) usage('--key is required');
  if (!/^https?:\/\//.test(url)) usage('--url must start with https:// (or http:// for a local stack)');
  if (!Number.isFinite(timeout) || timeout <= 0) usage('--scoring-timeout-seconds must be a positive number');
  return { url: url.replace(/\/+$/, ''), key, scoringTimeoutMs: timeout * 1000 };
}

/** Why an answer is not the expected one, in words an operator can act on. */
function explain(method: string, path: string, answer: Answer, expected: number): string {
  const detail =
    typeof answer.body === 'object' && answer.body !== null && 'detail' in answer.body
      ? JSON.stringify((answer.body as { detail: unknown }).detail)
      : answer.text.slice(0, 300);
  const prefix = `${method} ${path} answered ${answer.status} (expected ${expected})`;
  if (answer.status === 401) return `${prefix}: the key is unknown, expired or revoked (${detail})`;
  if (answer.status === 403) {
    return `${prefix}: the key lacks a scope the smoke test needs (${detail}); use a key with properties:write, leads:read and leads:write`;
  }
  if (answer.status === 402) return `${prefix}: the Tenant's subscription is read-only (${detail})`;
  if (answer.status === 503) return `${prefix}: the Tenant's account is suspended (${detail})`;
  return `${prefix}: ${detail}`;
}

function client(options: Options) {
  // biome-ignore lint/suspicious/noExplicitAny: each step checks the fields it reads, with a message.
  return async function call(method: string, path: string, expected: number, body?: unknown): Promise<any> {
    let response: Response;
    try {
      response = await fetch(options.url + path, {
        method,
        headers: {
          authorization: `Bearer ${options.key}`,
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
      });
    } catch (error) {
      const cause = (error as { cause?: { message?: string } }).cause?.message;
      throw new StepFailure(
        `${method} ${path} failed: ${(error as Error).message}${cause ? ` (${cause})` : ''}`,
      );
    }
    const text = await response.text();
    let parsed: unknown;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      parsed = undefined;
    }
    const answer = { status: response.status, body: parsed, text };
    if (answer.status !== expected) throw new StepFailure(explain(method, path, answer, expected));
    return parsed;
  };
}

function check(condition: unknown, message: string): asserts condition {
  if (!condition) throw new StepFailure(message);
}

/** Runs the steps in order; a step whose input failed is skipped, and cleanup always runs. */
export async function runSmoke(options: Options, out: (line: string) => void): Promise<boolean> {
  const call = client(options);
  let allPassed = true;
  const step = async <T>(
    name: string,
    run: () => Promise<{ value: T; note: string }>,
  ): Promise<T | undefined> => {
    const started = performance.now();
    try {
      const { value, note } = await run();
      out(`PASS  ${name.padEnd(25)} ${note} (${Math.round(performance.now() - started)} ms)`);
      return value;
    } catch (error) {
      allPassed = false;
      const reason =
        error instanceof StepFailure ? error.message : `unexpected error: ${(error as Error).stack}`;
      out(`FAIL  ${name.padEnd(25)} ${reason} (${Math.round(performance.now() - started)} ms)`);
      return undefined;
    }
  };
  const skip = (name: string, because: string) => {
    allPassed = false;
    out(`SKIP  ${name.padEnd(25)} ${because}`);
  };
  const stamp = new Date()
    .toISOString()
    .replace(/[-:.TZ]/g, '')
    .slice(0, 14);

  const placeCode = await step('places read', async () => {
    const page = await call('GET', '/v1/places', 200);
    const code = page?.data?.[0]?.code as string | undefined;
    check(code, 'GET /v1/places lists no Place: import the catalogue first (admin place import)');
    return { value: code, note: `GET /v1/places → ${page.data.length} places, using ${code}` };
  });
  const agent = await step('agents read', async () => {
    const page = await call('GET', '/v1/agents?limit=1', 200);
    const first = page?.data?.[0] as { id: string; email: string } | undefined;
    check(first, 'the Tenant has no Agent to be the Lead Owner: create one (admin agent create)');
    return { value: first, note: `GET /v1/agents → Owner to be ${first.email}` };
  });

  let listingId: string | undefined;
  if (placeCode && agent) {
    listingId = await step('listing write', async () => {
      const listing = await call('POST', '/v1/properties', 201, {
        title: `Smoke test ${stamp}`,
        internal_ref: `smoke-${stamp}-${Math.random().toString(36).slice(2, 8)}`,
        place_code: placeCode,
        agent_id: agent.id,
        listing_type: 'sale',
        price: '100000',
        currency: 'EUR',
        ai_enrichment: false,
      });
      check(listing?.status === 'live', `the listing is ${listing?.status}, expected live (it has a Place)`);
      return { value: listing.id as string, note: `POST /v1/properties → 201 ${listing.id}` };
    });
  } else skip('listing write', 'needs a Place and an Agent');

  if (listingId) {
    await step('listing read', async () => {
      const listing = await call('GET', `/v1/properties/${listingId}`, 200);
      check(listing?.title === `Smoke test ${stamp}`, `the listing read back has title ${listing?.title}`);
      return { value: true, note: `GET /v1/properties/{id} → 200` };
    });
  } else skip('listing read', 'needs the listing');

  let leadId: string | undefined;
  if (listingId && agent) {
    leadId = await step('ingest (email, queue)', async () => {
      const result = await call('POST', '/v1/leads:ingest', 201, {
        source: 'smoke-test',
        type: 'inquiry',
        person: { name: `Smoke Test ${stamp}`, email: `smoke-${stamp}@example.com` },
        message: 'Smoke test after a deploy: please ignore.',
        property_id: listingId,
      });
      check(
        Array.isArray(result?.warnings) && result.warnings.length === 0,
        `ingest warned: ${JSON.stringify(result?.warnings)}`,
      );
      check(
        result.lead?.assigned_agent_id === agent.id,
        `the Lead Owner is ${result.lead?.assigned_agent_id}, expected the listing's Agent ${agent.id}`,
      );
      check(result.inquiry_id, 'no Inquiry was recorded');
      return {
        value: result.lead.id as string,
        note: `POST /v1/leads:ingest → 201, Owner ${agent.email} notified`,
      };
    });
  } else skip('ingest (email, queue)', 'needs the listing and an Agent');

  if (leadId) {
    await step('scoring (queue, AI)', async () => {
      const deadline = Date.now() + options.scoringTimeoutMs;
      for (;;) {
        const lead = await call('GET', `/v1/leads/${leadId}`, 200);
        if (lead?.scored_at) {
          return { value: true, note: `scored ${lead.score} (${lead.score_tier}) at ${lead.scored_at}` };
        }
        if (Date.now() + POLL_INTERVAL_MS > deadline) {
          throw new StepFailure(
            `the Lead was not scored within ${options.scoringTimeoutMs / 1000} s: check the stream consumer, the AI queue and its DLQ, and Bedrock model access`,
          );
        }
        await new Promise((resolve) => setTimeout(resolve, POLL_INTERVAL_MS));
      }
    });
    await step('criteria write', async () => {
      const criteria = await call('PUT', `/v1/leads/${leadId}/criteria`, 200, {
        listing_type: 'sale',
        place_codes: [placeCode],
      });
      check(
        criteria?.places?.some((p: { code: string }) => p.code === placeCode),
        `the criteria do not label ${placeCode} (the Places BatchGetItem)`,
      );
      return { value: true, note: 'PUT /v1/leads/{id}/criteria → 200, place_codes labelled' };
    });
    await step('lead properties read', async () => {
      const links = await call('GET', `/v1/leads/${leadId}/properties`, 200);
      check(
        links?.data?.some((l: { property_id: string }) => l.property_id === listingId),
        'the inquired listing is not linked to the Lead',
      );
      return { value: true, note: 'GET /v1/leads/{id}/properties → 200, listing linked' };
    });
    await step('matches read', async () => {
      const matches = await call('GET', `/v1/leads/${leadId}/matches`, 200);
      check(
        matches?.data?.some((m: { property_id: string }) => m.property_id === listingId),
        'the smoke listing does not match the criteria',
      );
      return { value: true, note: `GET /v1/leads/{id}/matches → ${matches.data.length} matches` };
    });
  } else {
    for (const name of ['scoring (queue, AI)', 'criteria write', 'lead properties read', 'matches read']) {
      skip(name, 'needs the ingested Lead');
    }
  }

  // Cleanup: archive what was created (nothing is hard-deleted through the interface).
  if (leadId) {
    await step('cleanup: archive Lead', async () => {
      await call('DELETE', `/v1/leads/${leadId}`, 204);
      return { value: true, note: 'DELETE /v1/leads/{id} → 204' };
    });
  }
  if (listingId) {
    await step('cleanup: archive listing', async () => {
      await call('DELETE', `/v1/properties/${listingId}`, 204);
      return { value: true, note: 'DELETE /v1/properties/{id} → 204' };
    });
  }
  return allPassed;
}

if (import.meta.main) {
  const options = readOptions(process.argv.slice(2));
  process.stdout.write(`Smoke test of ${options.url}\n`);
  const passed = await runSmoke(options, (line) => process.stdout.write(`${line}\n`));
  process.stdout.write(passed ? 'All steps passed.\n' : 'Some steps failed.\n');
  process.exit(passed ? 0 : 1);
}
