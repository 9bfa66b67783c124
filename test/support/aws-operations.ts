import { appendFileSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { type AwsOperation, runAsFunction } from '../../functions/kernel/aws-operations.ts';

/**
 * Where the integration and e2e runs leave the AWS operations each function performed, one JSON line
 * per distinct operation and test worker process; test/infra/permissions.test.ts reads them after.
 */
export const AWS_OPERATIONS_DIR = resolve(import.meta.dirname, '../../node_modules/.cache/aws-operations');

/** The entry of a function that is not an HTTP route, as the records name it (relative to the repository). */
export const WORKER_ENTRIES = {
  aiWorker: 'functions/workers/ai.ts',
  aiResume: 'functions/workers/ai-resume.ts',
  streamConsumer: 'functions/streams/consumer.ts',
  webhookDelivery: 'functions/workers/webhook-delivery.ts',
  imageImport: 'functions/workers/image-import.ts',
} as const;

/** Empties the records of the previous run (the global setup does it before a run). */
export function clearAwsOperations(): void {
  rmSync(AWS_OPERATIONS_DIR, { recursive: true, force: true });
  mkdirSync(AWS_OPERATIONS_DIR, { recursive: true });
}

/** A sink for `recordAwsOperations` that appends each distinct operation of this process to the records. */
export function awsOperationsFileSink(): (operation: AwsOperation) => void {
  mkdirSync(AWS_OPERATIONS_DIR, { recursive: true });
  const file = join(AWS_OPERATIONS_DIR, `${process.pid}.operations.jsonl`);
  const seen = new Set<string>();
  return (operation) => {
    const line = JSON.stringify(operation);
    if (seen.has(line)) return;
    seen.add(line);
    appendFileSync(file, `${line}\n`);
  };
}

/** The lines of every file of this run whose name ends with `suffix`, deduplicated. */
function readLines(suffix: string): string[] {
  if (!existsSync(AWS_OPERATIONS_DIR)) return [];
  const lines = readdirSync(AWS_OPERATIONS_DIR)
    .filter((name) => name.endsWith(suffix))
    .flatMap((name) => readFileSync(join(AWS_OPERATIONS_DIR, name), 'utf8').split('\n'))
    .filter((line) => line.length > 0);
  return [...new Set(lines)];
}

/** Every operation recorded so far, deduplicated. */
export function readAwsOperations(): AwsOperation[] {
  return readLines('.operations.jsonl').map((line) => JSON.parse(line) as AwsOperation);
}

/** The workers and consumers the tests invoked (some perform no DynamoDB operation of their own). */
export function readInvokedFunctions(): string[] {
  return readLines('.invoked.jsonl');
}

/**
 * `handler` invoked as the function at `entry`, for tests that call a worker or the stream consumer
 * directly: what it does on AWS is recorded under that function, as the local server does for routes,
 * and the function is marked as run.
 */
export function asFunction<A extends unknown[], R>(
  entry: string,
  handler: (...args: A) => R,
): (...args: A) => R {
  return (...args) => {
    // Marks the function as run: the stream consumer performs no DynamoDB operation of its own.
    mkdirSync(AWS_OPERATIONS_DIR, { recursive: true });
    appendFileSync(join(AWS_OPERATIONS_DIR, `${process.pid}.invoked.jsonl`), `${entry}\n`);
    return runAsFunction(entry, () => handler(...args));
  };
}
