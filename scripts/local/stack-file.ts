import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { resolve } from 'node:path';

/** Written by `npm start` so that the admin CLI (and tests) can find the running local stack. */
export interface LocalStackInfo {
  pid: number;
  dynamoEndpoint: string;
  apiUrl: string;
  tableName: string;
  s3Endpoint?: string;
  /** The stack's DATA_DIR, absolute. */
  dataDir?: string;
}

export function dataDir(): string {
  return resolve(process.env.DATA_DIR ?? '.data');
}

const fileIn = (dir: string) => resolve(dir, 'local-stack.json');

/**
 * Every running stack of this machine also leaves a file here, named by its pid, whatever its
 * DATA_DIR: the admin CLI started with another DATA_DIR can say where the stacks run.
 */
export function stacksRegistry(): string {
  return resolve(tmpdir(), 'listings-leads-local-stacks');
}

const registryFile = (pid: number) => resolve(stacksRegistry(), `${pid}.json`);

export function writeStackInfo(dir: string, info: LocalStackInfo): void {
  const entry = { ...info, dataDir: resolve(dir) };
  writeFileSync(fileIn(dir), JSON.stringify(entry, null, 2));
  try {
    mkdirSync(stacksRegistry(), { recursive: true });
    writeFileSync(registryFile(info.pid), JSON.stringify(entry, null, 2));
  } catch {
    // The registry only helps the admin CLI's messages: a stack runs without it.
  }
}

export function removeStackInfo(dir: string): void {
  const info = readStackFile(fileIn(dir));
  rmSync(fileIn(dir), { force: true });
  rmSync(registryFile(info?.pid ?? process.pid), { force: true });
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it runs, as another user.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function readStackFile(file: string): LocalStackInfo | undefined {
  if (!existsSync(file)) return undefined;
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as LocalStackInfo;
  } catch {
    return undefined;
  }
}

/** The running stack on this DATA_DIR, if any (a file left by a killed stack is ignored). */
export function readStackInfo(dir: string): LocalStackInfo | undefined {
  const info = readStackFile(fileIn(dir));
  return info && alive(info.pid) ? info : undefined;
}

/**
 * Every local stack running on this machine, whatever its DATA_DIR (those started before the
 * registry existed are not listed). Files of stacks that are gone are removed.
 */
export function runningStacks(): (LocalStackInfo & { dataDir: string })[] {
  let names: string[];
  try {
    names = readdirSync(stacksRegistry()).filter((name) => name.endsWith('.json'));
  } catch {
    return [];
  }
  const stacks: (LocalStackInfo & { dataDir: string })[] = [];
  for (const name of names) {
    const file = resolve(stacksRegistry(), name);
    const info = readStackFile(file);
    // Still its stack: the DATA_DIR's own file names the same process.
    const current = info?.dataDir ? readStackFile(fileIn(info.dataDir)) : undefined;
    if (info?.dataDir && alive(info.pid) && current?.pid === info.pid) {
      stacks.push(info as LocalStackInfo & { dataDir: string });
    } else {
      rmSync(file, { force: true });
    }
  }
  return stacks;
}
