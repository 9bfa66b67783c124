import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type DynamoRecorder,
  roundsAfter,
  startDynamoRecorder,
} from '../../scripts/bench/dynamo-recorder.ts';

/** DynamoDB's part played by a loopback server: every call answered `{}` once its body is read. */
let upstream: Server;
let recorder: DynamoRecorder;

beforeAll(async () => {
  upstream = createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(200, { 'content-type': 'application/x-amz-json-1.0' }).end('{}'));
  });
  await new Promise<void>((done) => upstream.listen(0, '127.0.0.1', done));
  const { port } = upstream.address() as { port: number };
  recorder = await startDynamoRecorder(`http://127.0.0.1:${port}`);
});

afterAll(async () => {
  await recorder.stop();
  await new Promise((done) => upstream.close(done));
});

const call = (operation: string, body: Record<string, unknown> = {}) =>
  fetch(recorder.endpoint, {
    method: 'POST',
    headers: { 'x-amz-target': `DynamoDB_20120810.${operation}` },
    body: JSON.stringify(body),
  }).then((r) => r.text());

describe('the bench recorder: sequential rounds', () => {
  it('numbers each call by the round it went out in, and counts the rounds after a marked one', async () => {
    // Prepare / Act: a lookup, then two writes together, then two reads one after the other
    const { recording } = await recorder.record(async () => {
      await call('GetItem');
      await Promise.all([call('UpdateItem', { marker: 1 }), call('UpdateItem', { marker: 1 })]);
      await call('Query');
      await call('Query');
    });

    // Assess
    expect(recording.rounds).toBe(4);
    expect(recording.calls.map((c) => [c.operation, c.round])).toEqual([
      ['GetItem', 1],
      ['UpdateItem', 2],
      ['UpdateItem', 2],
      ['Query', 3],
      ['Query', 4],
    ]);
    expect(roundsAfter(recording, (c) => c.input.marker === 1)).toBe(2);
    expect(roundsAfter(recording, () => false)).toBe(4);
  });
});
