/**
 * `node scripts/bench/profile-top.ts FILE.cpuprofile [--top 15] [--last SECONDS]`: the top costs of a V8 CPU profile
 * (as written by `npm run bench -- --only load --cpu-prof DIR`), by self time: per area (a package
 * under node_modules, a folder of ours, Node's internals, the garbage collector) and per function.
 * Idle time is left out, so the shares are of the CPU the process actually used.
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/** Where a frame's code lives: `electrodb`, `@smithy/…`, `functions/api`, `node:internal`, … */
export function areaOf(url: string, functionName: string): string {
  if (!url) return functionName.startsWith('(') ? functionName : '(native)';
  if (url.startsWith('node:')) return 'node internals';
  const inModules = url.match(/node_modules\/((?:@[^/]+\/)?[^/]+)/);
  if (inModules?.[1]) return inModules[1];
  const ours = url.match(/\/(functions\/[^/]+|scripts\/[^/]+)\//);
  if (ours?.[1]) return ours[1];
  return url.replace(/^file:\/\//, '');
}

export interface Cost {
  name: string;
  ms: number;
  percent: number;
}

/**
 * Self time per area and per function, largest first, idle excluded. With `lastSeconds`, only the
 * samples of the profile's last seconds count (the load phase, without start-up and warm-up).
 */
export function topCosts(
  profile: CpuProfile,
  lastSeconds?: number,
): { total: number; areas: Cost[]; functions: Cost[] } {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const at: number[] = [];
  let clock = 0;
  for (const delta of profile.timeDeltas) {
    clock += delta;
    at.push(clock);
  }
  const from = lastSeconds === undefined ? Number.NEGATIVE_INFINITY : clock - lastSeconds * 1e6;
  const self = new Map<number, number>();
  for (const [i, id] of profile.samples.entries()) {
    if ((at[i] ?? 0) < from) continue;
    self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0));
  }
  const areas = new Map<string, number>();
  const functions = new Map<string, number>();
  let total = 0;
  for (const [id, micros] of self) {
    const node = byId.get(id);
    if (!node || node.callFrame.functionName === '(idle)') continue;
    const { functionName, url, lineNumber } = node.callFrame;
    const area = areaOf(url, functionName);
    total += micros;
    areas.set(area, (areas.get(area) ?? 0) + micros);
    const where = url
      ? `${url.replace(/^.*?(node_modules\/|\/functions\/|\/scripts\/)/, '$1')}:${lineNumber + 1}`
      : '';
    const name = `${functionName || '(anonymous)'} ${where}`.trim();
    functions.set(name, (functions.get(name) ?? 0) + micros);
  }
  const sorted = (m: Map<string, number>): Cost[] =>
    [...m]
      .sort((a, b) => b[1] - a[1])
      .map(([name, micros]) => ({ name, ms: micros / 1000, percent: (100 * micros) / total }));
  return { total: total / 1000, areas: sorted(areas), functions: sorted(functions) };
}

if (import.meta.main) {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: { top: { type: 'string', default: '15' }, last: { type: 'string' } },
  });
  const file = positionals[0];
  if (!file) {
    process.stderr.write(
      'usage: node scripts/bench/profile-top.ts FILE.cpuprofile [--top 15] [--last SECONDS]\n',
    );
    process.exit(2);
  }
  const top = Number(values.top);
  const costs = topCosts(
    JSON.parse(readFileSync(file, 'utf8')) as CpuProfile,
    values.last === undefined ? undefined : Number(values.last),
  );
  const line = (c: Cost) =>
    `  ${c.percent.toFixed(1).padStart(5)}%  ${c.ms.toFixed(0).padStart(7)} ms  ${c.name}`;
  process.stdout.write(`CPU used (idle excluded): ${costs.total.toFixed(0)} ms\n\nBy area (self time):\n`);
  process.stdout.write(`${costs.areas.slice(0, top).map(line).join('\n')}\n\nBy function (self time):\n`);
  process.stdout.write(`${costs.functions.slice(0, top).map(line).join('\n')}\n`);
}
