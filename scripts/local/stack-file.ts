import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';

/** Written by `npm start` so that the admin CLI (and tests) can find the running local stack. */
export interface LocalStackInfo {
  pid: number;
  dynamoEndpoint: string;
  apiUrl: string;
  tableName: string;
  s3Endpoint?: string;
}

export function dataDir(): string {
  return resolve(process.env.DATA_DIR ?? '.data');
}

const fileIn = (dir: string) => resolve(dir, 'local-stack.json');

export function writeStackInfo(dir: string, info: LocalStackInfo): void {
  writeFileSync(fileIn(dir), JSON.stringify(info, null, 2));
}

export function removeStackInfo(dir: string): void {
  rmSync(fileIn(dir), { force: true });
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** The running stack on this DATA_DIR, if any (a file left by a killed stack is ignored). */
export function readStackInfo(dir: string): LocalStackInfo | undefined {
  const file = fileIn(dir);
  if (!existsSync(file)) return undefined;
  try {
    const info = JSON.parse(readFileSync(file, 'utf8')) as LocalStackInfo;
    return alive(info.pid) ? info : undefined;
  } catch {
    return undefined;
  }
}
