/**
 * The bench's one child-process runner: a script beside this file in a fresh Node, its input and its
 * answer messages on Node's IPC channel. A job answers once and exits 0; a server answers (its URL)
 * and runs until stopped. Its stdout (a handler's logs) is kept for an error: the bench's is its report.
 */
import { fork, type StdioOptions } from 'node:child_process';
import { once } from 'node:events';
import { resolve } from 'node:path';

/** `env`: the child's whole environment (default: the bench's). */
export function startChild<T>(script: string, input: unknown, env: NodeJS.ProcessEnv = process.env) {
  const stdio: StdioOptions = ['ignore', 'pipe', 'inherit', 'ipc'];
  const child = fork(resolve(import.meta.dirname, script), { env, stdio });
  let out = '';
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
    out = (out + chunk).slice(-500);
  });
  child.send(input as object);
  // 'close' comes after the IPC channel is read to its end: never before the answer it carried.
  const exited = once(child, 'close').then(([code]) => code as number | null);
  const failed = (code: number | null) => new Error(`${script} exited ${code}: ${out}`);
  const first = Promise.race([
    once(child, 'message').then(([message]) => message as T),
    exited.then((code) => Promise.reject(failed(code))),
  ]);
  const last = Promise.all([first, exited]).then(([message, code]) => {
    if (code !== 0) throw failed(code);
    return message;
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

/** Runs a job to its end: its answer. */
export const runChild = <T>(script: string, input: unknown, env?: NodeJS.ProcessEnv) =>
  startChild<T>(script, input, env).last;

/** In a child: its input; and it leaves when the bench does. */
export async function childInput<T>(): Promise<T> {
  process.on('disconnect', () => process.exit(0));
  const [input] = await once(process, 'message');
  return input as T;
}

/** In a child: the answer; a job then ends (SDK sockets would keep it alive). */
export function answer(value: unknown, end = true): void {
  process.send?.(value, () => end && process.exit(0));
}
