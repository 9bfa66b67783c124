/**
 * A stack that does not stop on SIGINT is killed with what it started (test/support/local-stack.ts):
 * killing `npm start` alone left its DynamoDB Local running, an orphan eating CPU for the rest of a run.
 */
import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { eventually } from '../support/eventually.ts';
import { killStack } from '../support/local-stack.ts';

function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('killStack', () => {
  it("kills the stack's own children with it, as a DynamoDB Local under npm start", async () => {
    // Prepare: a "stack" (its own process group) that starts a long-lived child and prints its pid
    const stack = spawn(
      process.execPath,
      [
        '-e',
        `const { spawn } = require('node:child_process');
         const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
         console.log(child.pid);
         setInterval(() => {}, 1000);`,
      ],
      { stdio: ['ignore', 'pipe', 'inherit'], detached: true },
    );
    let out = '';
    stack.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString('utf8');
    });
    const childPid = Number(
      await eventually(
        async () => out.trim(),
        (pid) => /^\d+$/.test(pid),
      ),
    );
    expect(running(childPid)).toBe(true);
    // Act
    killStack(stack);
    // Assess: the child is gone too, not left an orphan
    expect(
      await eventually(
        async () => running(childPid),
        (alive) => !alive,
      ),
    ).toBe(false);
  });
});
