/**
 * The admin CLI: `npm run -s admin -- <command> [--flag value ...]`.
 * JSON on stdout and nothing else there; progress on stderr when it is a terminal; an error is one
 * line on stderr, exit 1 (an unknown command too). `--help` prints the usage (exit 0); an option the
 * command does not take is one line naming it, then the usage, on stderr, exit 2, before any
 * connection.
 *
 * Target, in order: a deployed table when TABLE_NAME is set (AWS credentials from the environment);
 * the local stack that `npm start` runs on DATA_DIR; the data a stopped stack left on DATA_DIR, with
 * DynamoDB Local started on it for the duration of the command. It refuses, naming the DATA_DIR it
 * looked at, when a stack runs on another DATA_DIR (it would answer from the wrong data) or when
 * DATA_DIR holds no data.
 */
import { parseArgs, UsageError } from './args.ts';
import { terminalProgress } from './progress.ts';
import { COMMAND_USAGE, flagsOf, usage } from './usage.ts';

const { words, flags } = parseArgs(process.argv.slice(2));
const fail = (message: string): never => {
  process.stderr.write(`error: ${message.split('\n')[0]}\n`);
  process.exit(1);
};
/** A command line that names no command or an option the command does not take. */
const badCommandLine = (message: string): never => {
  process.stderr.write(`error: ${message}\n\n${usage()}`);
  process.exit(2);
};

const name = words.slice(0, 2).join(' ');
if (flags.has('help') || (words.length === 0 && flags.size === 0)) {
  process.stdout.write(usage());
  process.exit(0);
}
if (words.length === 0) badCommandLine(`Unknown option '--${[...flags.keys()][0]}'`);
if (words.length !== 2 || !(name in COMMAND_USAGE)) {
  fail(`unknown command "${words.join(' ')}"; run with --help for the list`);
}
const unknownFlag = [...flags.keys()].find((flag) => !flagsOf(name).has(flag));
if (unknownFlag) badCommandLine(`Unknown option '--${unknownFlag}' for "${name}"`);

async function connect(): Promise<() => Promise<void>> {
  if (process.env.TABLE_NAME && !process.env.DYNAMODB_ENDPOINT) return async () => undefined;
  if (process.env.DYNAMODB_ENDPOINT) return async () => undefined;
  const { dataDir, readStackInfo, runningStacks } = await import('../local/stack-file.ts');
  const { resolve } = await import('node:path');
  const { existsSync } = await import('node:fs');
  const dir = dataDir();
  const running = readStackInfo(dir);
  if (running) {
    Object.assign(process.env, { DYNAMODB_ENDPOINT: running.dynamoEndpoint, TABLE_NAME: running.tableName });
    // Its S3 too (the catalogue snapshots), unless one is given.
    if (running.s3Endpoint) process.env.S3_ENDPOINT ??= running.s3Endpoint;
    return async () => undefined;
  }
  const elsewhere = runningStacks().filter((stack) => resolve(stack.dataDir) !== dir);
  if (elsewhere.length > 0) {
    const where = elsewhere.map((stack) => `DATA_DIR=${stack.dataDir} (pid ${stack.pid})`).join(', ');
    throw new UsageError(
      `no local stack runs on DATA_DIR ${dir}; npm start runs on ${where}: run the command with that DATA_DIR`,
    );
  }
  if (!existsSync(resolve(dir, 'dynamodb'))) {
    throw new UsageError(
      `no local stack runs on DATA_DIR ${dir}, and it holds no data: start one (npm start), set DATA_DIR to the folder npm start runs on, or TABLE_NAME for a deployed table`,
    );
  }
  const { ensureTable, startDynamoLocal } = await import('../local/dynamo-local.ts');
  const dynamo = await startDynamoLocal({ dataDir: resolve(dir, 'dynamodb') });
  const tableName = 'listings-leads';
  await ensureTable(dynamo.endpoint, tableName);
  Object.assign(process.env, { DYNAMODB_ENDPOINT: dynamo.endpoint, TABLE_NAME: tableName });
  return dynamo.stop;
}

async function main(): Promise<void> {
  process.env.LOG_LEVEL ??= 'ERROR';
  // Connect first: the data modules read the endpoint and table from the environment on import.
  const disconnect = await connect();
  const { commands } = await import('./commands.ts');
  const command = commands[name];
  try {
    if (!command) throw new Error(`"${name}" has a usage line and no command`);
    const result = await command.run(flags, (label) => terminalProgress(label, process.stderr));
    process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
  } finally {
    await disconnect();
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    const known =
      error instanceof UsageError ||
      (error instanceof Error &&
        ['AdminInputError', 'NotFoundError', 'ConflictError'].includes(error.constructor.name));
    fail(known ? (error as Error).message : `${(error as Error).name}: ${(error as Error).message}`);
  },
);
