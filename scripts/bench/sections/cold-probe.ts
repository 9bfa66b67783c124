/**
 * One cold-start sample, in a fresh process run as in Lambda (cold-start.ts): reads the bundle's URL
 * and the event, then times `import()` of the bundle, and `import()` plus the handler's answer; Node's
 * own start-up, the same for all, is left out.
 */
import { answer, childInput } from '../child.ts';

const { url, event, name } = await childInput<{ url: string; event: unknown; name: string }>();
const arn = `arn:aws:lambda:us-east-1:000000000000:function:${name}`;
const context = {
  functionName: name,
  invokedFunctionArn: arn,
  memoryLimitInMB: '1024',
  awsRequestId: crypto.randomUUID(),
};
const lambda = { ...context, functionVersion: '$LATEST', getRemainingTimeInMillis: () => 29_000 };
const started = performance.now();
const module = (await import(url)) as { handler: (event: unknown, context: unknown) => Promise<unknown> };
const importMs = performance.now() - started;
let status: string;
try {
  const result = (await module.handler(event, lambda)) as {
    statusCode?: number;
    batchItemFailures?: unknown[];
  };
  const failed = result?.batchItemFailures?.length;
  status = result?.statusCode ? String(result.statusCode) : failed ? `${failed} failed` : 'ok';
} catch (error) {
  status = `threw: ${String((error as Error)?.message ?? error).slice(0, 200)}`;
}
// At once: a Lambda sandbox is frozen after its answer, not left to close its sockets.
answer({ importMs, firstMs: performance.now() - started, status });
