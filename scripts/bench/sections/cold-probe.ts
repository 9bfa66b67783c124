/**
 * One cold-start sample in a fresh process run as in Lambda: times `import()` of the bundle, and
 * `import()` plus the handler's answer to the event; Node's own start-up, the same for all, left out.
 */
import { lambdaContext } from '../../local/lambda-events.ts';
import { answer, childInput } from '../child.ts';

const { url, event, name } = await childInput<{ url: string; event: unknown; name: string }>();
const lambda = lambdaContext(name, crypto.randomUUID());
const started = performance.now();
const module = (await import(url)) as { handler: (event: unknown, context: unknown) => Promise<unknown> };
const importMs = performance.now() - started;
let status: string;
try {
  type Result = { statusCode?: number; batchItemFailures?: unknown[] } | undefined;
  const result = (await module.handler(event, lambda)) as Result;
  const failed = result?.batchItemFailures?.length;
  status = result?.statusCode ? String(result.statusCode) : failed ? `${failed} failed` : 'ok';
} catch (error) {
  status = `threw: ${String((error as Error)?.message ?? error).slice(0, 200)}`;
}
// At once: a Lambda sandbox is frozen after its answer, not left to close its sockets.
answer({ importMs, firstMs: performance.now() - started, status });
