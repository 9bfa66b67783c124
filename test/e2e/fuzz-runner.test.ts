/**
 * The fuzz runner itself: against a tiny HTTP server with a planted 500, the property fails and the
 * error prints the shrunk request. Without the plant, the same property passes.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadContract } from '../support/contract.ts';
import {
  checkRequests,
  type FuzzOperation,
  type FuzzRequest,
  formatRequest,
  mutatedRequests,
  mutatedVerdict,
  send,
  validRequests,
  validVerdict,
} from '../support/fuzz.ts';

/** One operation: `POST /v1/things/{thing_id}` with a body `{ name: string (1..20), size?: integer 0..10 }`. */
const THING: FuzzOperation = {
  operationId: 'createThing',
  method: 'POST',
  path: '/v1/things/{thing_id}',
  pathParams: [{ name: 'thing_id', schema: { type: 'string', format: 'uuid' } }],
  queryParams: [],
  body: {
    type: 'object',
    properties: {
      name: { type: 'string', minLength: 1, maxLength: 20 },
      size: { type: 'integer', minimum: 0, maximum: 10 },
    },
    required: ['name'],
  },
  documented: new Set([201, 422]),
};

/** A document for THING whose 201 must carry an `id`: the tiny server below answers `{}`. */
const THING_DOCUMENT = {
  paths: {
    '/v1/things/{thing_id}': {
      post: {
        responses: {
          201: {
            content: {
              'application/json': {
                schema: { type: 'object', required: ['id'], properties: { id: { type: 'string' } } },
              },
            },
          },
          422: { content: { 'application/json': { schema: { type: 'object' } } } },
        },
      },
    },
  },
};

let server: Server;
let url: string;
let plantSize: number | undefined;

beforeAll(async () => {
  // Answers 201 to a JSON body, 422 to anything else; a planted bug: 500 when `size` is plantSize.
  server = createServer((req, res) => {
    let text = '';
    req.on('data', (chunk) => {
      text += chunk;
    });
    req.on('end', () => {
      let body: { size?: unknown } | undefined;
      try {
        body = JSON.parse(text);
      } catch {
        body = undefined;
      }
      const status = body && plantSize !== undefined && body.size === plantSize ? 500 : body ? 201 : 422;
      res.writeHead(status, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

describe('the fuzz property runner', () => {
  it('passes against a server without the planted 500', async () => {
    // Arrange
    plantSize = undefined;
    // Act
    const runs = await checkRequests({
      arbitrary: validRequests(THING),
      send: (request) => send(url, request),
      verdict: validVerdict(THING),
      numRuns: 50,
      seed: 1,
    });
    // Assess
    expect(runs).toBe(50);
  });

  it('fails on a planted 500 for one input and prints the shrunk request', async () => {
    // Arrange
    plantSize = 7;
    // Act
    const failure = await checkRequests({
      arbitrary: validRequests(THING),
      send: (request) => send(url, request),
      verdict: validVerdict(THING),
      numRuns: 200,
      seed: 1,
    }).then(
      () => undefined,
      (error: Error) => error.message,
    );
    // Assess: the message names the 5xx and shows the shrunk request, minimal but for the trigger.
    expect(failure).toBeDefined();
    console.info(`planted 500, as the fuzz test reports it:\n${failure}`);
    expect(failure).toContain('status 500 (5xx)');
    expect(failure).toMatch(/shrunk request:\nPOST \/v1\/things\/[0-9a-f-]{36}\n/);
    expect(failure).toContain('content-type: application/json\n');
    expect(failure).toMatch(/body: \{"name":".","size":7\}/);
    expect(failure).toMatch(/replay: seed 1, path "[\d:]+"/);
  });

  it("checks a valid request's answer against the document: a 201 without its required id fails", async () => {
    // Arrange
    plantSize = undefined;
    // Act
    const failure = await checkRequests({
      arbitrary: validRequests(THING),
      send: (request) => send(url, request),
      verdict: validVerdict(THING, loadContract(THING_DOCUMENT)),
      numRuns: 20,
      seed: 1,
    }).then(
      () => undefined,
      (error: Error) => error.message,
    );
    // Assess
    expect(failure).toBeDefined();
    expect(failure).toContain('the answer breaks the document');
    expect(failure).toMatch(/POST \/v1\/things\/[0-9a-f-]{36} → 201: body must have required property 'id'/);
    expect(failure).toContain('shrunk request:\nPOST /v1/things/');
  });

  it('mutated requests find a planted 500 too', async () => {
    // Arrange
    plantSize = 0;
    // Act
    const failure = await checkRequests({
      arbitrary: mutatedRequests(THING),
      send: (request) => send(url, request),
      verdict: mutatedVerdict,
      numRuns: 300,
      seed: 2,
    }).then(
      () => undefined,
      (error: Error) => error.message,
    );
    // Assess
    expect(failure).toContain('status 500 (5xx)');
    expect(failure).toContain('shrunk request:\nPOST /v1/things/');
  });

  it('sends exactly the same requests again for the same seed (FUZZ_SEED replays a run), others for another', async () => {
    // Arrange: what each run sent, in order, valid then mutated, as test/support/fuzz-suite.ts draws them.
    plantSize = undefined;
    const sentBy = async (seed: number): Promise<string[]> => {
      const sent: string[] = [];
      const recording = (request: FuzzRequest) => {
        sent.push(formatRequest(request));
        return send(url, request);
      };
      await checkRequests({
        arbitrary: validRequests(THING),
        send: recording,
        verdict: validVerdict(THING),
        numRuns: 10,
        seed,
      });
      await checkRequests({
        arbitrary: mutatedRequests(THING),
        send: recording,
        verdict: mutatedVerdict,
        numRuns: 20,
        seed: seed + 1000,
      });
      return sent;
    };
    // Act
    const first = await sentBy(424242);
    const replayed = await sentBy(424242);
    const other = await sentBy(424243);
    // Assess
    expect(first).toHaveLength(30);
    expect(replayed).toEqual(first);
    expect(other).not.toEqual(first);
  });

  it('names the command that replays the run in a failure', async () => {
    // Arrange
    plantSize = 7;
    // Act
    const failure = await checkRequests({
      arbitrary: validRequests(THING),
      send: (request) => send(url, request),
      verdict: validVerdict(THING),
      numRuns: 200,
      seed: 1,
      replay: 'FUZZ_SEED=1 npm run test:slow',
    }).then(
      () => undefined,
      (error: Error) => error.message,
    );
    // Assess
    expect(failure).toMatch(/replay: seed 1, path "[\d:]+" \(FUZZ_SEED=1 npm run test:slow\)/);
    expect(failure).toContain('shrunk request:\nPOST /v1/things/');
  });
});
