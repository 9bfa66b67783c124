/**
 * `node scripts/bench/profile-top.ts FILE.cpuprofile [--top 15] [--last SECONDS] [--callers TEXT]`:
 * the top costs of a V8 CPU profile (as written by `npm run bench -- --only load --cpu-prof DIR`), by
 * self time: per area (a package under node_modules, a folder of ours, Node's internals, the garbage
 * collector) and per function; and by total time (self plus callees) per function of ours
 * (functions/, scripts/local), which names the code of ours a cost comes from. Idle time is left
 * out, so the shares are of the CPU the process actually used. `--callers TEXT`: for the functions
 * whose name contains TEXT, the nearest caller of ours and the time spent under each.
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
  callersOf?: string,
): { total: number; areas: Cost[]; functions: Cost[]; ours: Cost[]; callers: Cost[] } {
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
  const parentOf = new Map<number, number>();
  for (const n of profile.nodes) for (const child of n.children ?? []) parentOf.set(child, n.id);
  const nameOf = (node: ProfileNode): string => {
    const { functionName, url, lineNumber } = node.callFrame;
    const where = url
      ? `${url.replace(/^.*?(node_modules\/|\/functions\/|\/scripts\/)/, '$1')}:${lineNumber + 1}`
      : '';
    return `${functionName || '(anonymous)'} ${where}`.trim();
  };
  const isOurs = (node: ProfileNode): boolean =>
    /\/(functions|scripts\/local)\//.test(node.callFrame.url) && !node.callFrame.url.includes('node_modules');
  const areas = new Map<string, number>();
  const functions = new Map<string, number>();
  const ours = new Map<string, number>();
  const callers = new Map<string, number>();
  let total = 0;
  for (const [id, micros] of self) {
    const node = byId.get(id);
    if (!node || node.callFrame.functionName === '(idle)') continue;
    const { functionName, url } = node.callFrame;
    const area = areaOf(url, functionName);
    total += micros;
    areas.set(area, (areas.get(area) ?? 0) + micros);
    const name = nameOf(node);
    functions.set(name, (functions.get(name) ?? 0) + micros);
    // Total time: every distinct function of ours on the sample's stack gets the sample once.
    const seen = new Set<string>();
    let matched = callersOf !== undefined && name.includes(callersOf);
    for (let at = parentOf.get(id); at !== undefined; at = parentOf.get(at)) {
      const frame = byId.get(at);
      if (!frame) break;
      const frameName = nameOf(frame);
      if (callersOf !== undefined && !matched && frameName.includes(callersOf)) matched = true;
      else if (matched && isOurs(frame)) {
        callers.set(frameName, (callers.get(frameName) ?? 0) + micros);
        matched = false;
      }
      if (isOurs(frame) && !seen.has(frameName)) {
        seen.add(frameName);
        ours.set(frameName, (ours.get(frameName) ?? 0) + micros);
      }
    }
    if (isOurs(node) && !seen.has(name)) ours.set(name, (ours.get(name) ?? 0) + micros);
  }
  const sorted = (m: Map<string, number>): Cost[] =>
    [...m]
      .sort((a, b) => b[1] - a[1])
      .map(([name, micros]) => ({ name, ms: micros / 1000, percent: (100 * micros) / total }));
  return {
    total: total / 1000,
    areas: sorted(areas),
    functions: sorted(functions),
    ours: sorted(ours),
    callers: sorted(callers),
  };
}

if (import.meta.main) {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      top: { type: 'string', default: '15' },
      last: { type: 'string' },
      callers: { type: 'string' },
    },
  });
  const file = positionals[0];
  if (!file) {
    process.stderr.write(
      'usage: node scripts/bench/profile-top.ts FILE.cpuprofile [--top 15] [--last SECONDS] [--callers TEXT]\n',
    );
    process.exit(2);
  }
  const top = Number(values.top);
  const costs = topCosts(
    JSON.parse(readFileSync(file, 'utf8')) as CpuProfile,
    values.last === undefined ? undefined : Number(values.last),
    values.callers,
  );
  const line = (c: Cost) =>
    `  ${c.percent.toFixed(1).padStart(5)}%  ${c.ms.toFixed(0).padStart(7)} ms  ${c.name}`;
  process.stdout.write(`CPU used (idle excluded): ${costs.total.toFixed(0)} ms\n\nBy area (self time):\n`);
  process.stdout.write(`${costs.areas.slice(0, top).map(line).join('\n')}\n\nBy function (self time):\n`);
  process.stdout.write(`${costs.functions.slice(0, top).map(line).join('\n')}\n`);
  process.stdout.write(
    `\nOur functions by total time (self + callees):\n${costs.ours.slice(0, top).map(line).join('\n')}\n`,
  );
  if (values.callers !== undefined) {
    process.stdout.write(
      `\nNearest callers of ours of "${values.callers}" (time under each):\n${costs.callers.slice(0, top).map(line).join('\n')}\n`,
    );
  }
}
