import { connect } from 'node:net';
import { describe, expect, it } from 'vitest';
import { freePort, startDynamoLocal } from '../../scripts/local/dynamo-local.ts';

/** True when something accepts connections on the loopback port. */
function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ port, host: '127.0.0.1' });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

describe('starting DynamoDB Local', () => {
  it('stops the JVM of a start that gave up waiting for it, so it never holds its port afterwards', async () => {
    // Prepare
    const port = await freePort();
    // Act: a start that gives up long before any JVM answers
    await expect(startDynamoLocal({ port, startTimeoutMs: 1 })).rejects.toThrow(/did not answer/);
    // A second JVM, started after the first, is up: the first one would have bound its port by now.
    const witness = await startDynamoLocal();
    try {
      // Assess
      expect(await listening(port)).toBe(false);
    } finally {
      await witness.stop();
    }
  }, 180_000);
});
