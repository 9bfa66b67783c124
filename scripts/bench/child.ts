/**
 * The bench's one child-process runner: a script beside this file in a fresh Node (a fresh Lambda
 * container, or a server on an event loop of its own). Its input is the JSON on its stdin, its answer
 * one JSON line on stdout: a job's is its last line, and it exits 0; a server's is its first line
 * (its URL), and it runs until stopped or until the bench goes. Other lines (a handler's logs) pass.
 */
import { spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { text } from 'node:stream/consumers';

/** `env`: the child's whole environment (default: the bench's). */
export function startChild<T>(script: string, input: unknown, env: NodeJS.ProcessEnv = process.env) {
  const child = spawn(process.execPath, [resolve(import.meta.dirname, script)], {
    env,
    stdio: ['pipe', 'pipe', 'inherit', 'ipc'],
  });
  child.stdin?.end(JSON.stringify(input));
  let out = '';
  const exited = new Promise<number | null>((done, fail) => {
    child.on('error', fail);
    child.on('exit', done);
  });
  const failed = (code: number | null) => new Error(`${script} exited ${code}: ${out.slice(-500)}`);
  const first = new Promise<T>((answered, fail) => {
    child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
      out += chunk;
      const line = out.split('\n').find((l, i, all) => l.trim() && i < all.length - 1);
      if (line) answered(JSON.parse(line) as T);
    });
    void exited.then((code) => fail(failed(code)));
  });
  const last = exited.then((code) => {
    if (code !== 0) throw failed(code);
    return JSON.parse(out.trim().split('\n').at(-1) ?? '') as T;
  });
  // Each is awaited by the one kind of child it is for: no unhandled rejection from the other.
  first.catch(() => undefined);
  last.catch(() => undefined);
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await exited.catch(() => undefined);
  };
  return { first, last, stop };
}

/** Runs a job to its end: its answer is its last stdout line. */
export const runChild = <T>(script: string, input: unknown, env?: NodeJS.ProcessEnv) =>
  startChild<T>(script, input, env).last;

/** In a child: its input, read from stdin; and it leaves when the bench does. */
export async function childInput<T>(): Promise<T> {
  process.on('disconnect', () => process.exit(0));
  return JSON.parse(await text(process.stdin)) as T;
}

/** In a child: the answer, on a line of its own; a job then ends (SDK sockets would keep it alive). */
export function answer(value: unknown, end = true): void {
  process.stdout.write(`\n${JSON.stringify(value)}\n`, () => end && process.exit(0));
}
