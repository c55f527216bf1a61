/**
 * Sums a V8 .cpuprofile's self time by function and by file (or package), and prints the top of
 * each: `npx tsx bench/profile-summary.ts /tmp/apiprof/CPU.….cpuprofile [count]`. Idle time
 * (the event loop waiting) is left out of the shares.
 */
import { readFileSync } from 'node:fs';

interface ProfileNode {
  readonly id: number;
  readonly children?: readonly number[];
  readonly callFrame: { readonly functionName: string; readonly url: string; readonly lineNumber: number };
}

interface Profile {
  readonly nodes: readonly ProfileNode[];
  readonly samples: readonly number[];
  readonly timeDeltas: readonly number[];
}

/** node_modules/<package> for dependencies, the path from src/ or dist/ for the project, node: for the runtime. */
function fileOf(url: string): string {
  if (url === '') return '(native)';
  if (url.startsWith('node:')) return url;
  const modules = url.lastIndexOf('/node_modules/');
  if (modules >= 0) {
    const rest = url.slice(modules + '/node_modules/'.length).split('/');
    return `npm:${rest[0]?.startsWith('@') === true ? `${rest[0]}/${rest[1] ?? ''}` : (rest[0] ?? '')}`;
  }
  const src = url.search(/\/(dist\/)?src\//);
  return src >= 0 ? url.slice(src + 1) : url;
}

function top(totals: Map<string, number>, all: number, count: number): string[] {
  return [...totals.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, count)
    .map(([name, us]) => `${((us / all) * 100).toFixed(1).padStart(5)} %  ${(us / 1000).toFixed(0).padStart(7)} ms  ${name}`);
}

const [path, countText] = process.argv.slice(2);
if (path === undefined) throw new Error('usage: profile-summary.ts <file.cpuprofile> [count]');
const profile = JSON.parse(readFileSync(path, 'utf8')) as Profile;
const count = Number(countText ?? 25);
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const parentOf = new Map<number, number>();
for (const node of profile.nodes) for (const child of node.children ?? []) parentOf.set(child, node.id);
const nameOf = (node: ProfileNode): string => {
  const { functionName, url, lineNumber } = node.callFrame;
  return `${functionName === '' ? '(anonymous)' : functionName} ${fileOf(url)}${url === '' ? '' : `:${lineNumber + 1}`}`;
};
/** Inclusive time: each sample counts once for every distinct function on its stack. */
const inclusive = new Map<string, number>();
const byFunction = new Map<string, number>();
const byFile = new Map<string, number>();
let busy = 0;
let idle = 0;
profile.samples.forEach((id, i) => {
  const node = byId.get(id);
  const us = profile.timeDeltas[i] ?? 0;
  if (node === undefined) return;
  const { functionName, url } = node.callFrame;
  if (functionName === '(idle)' || functionName === '(program)') {
    if (functionName === '(idle)') idle += us;
    else busy += us;
    if (functionName === '(idle)') return;
  } else busy += us;
  const file = fileOf(url);
  const name = nameOf(node);
  const seen = new Set<string>();
  for (let at: number | undefined = id; at !== undefined; at = parentOf.get(at)) {
    const frame = byId.get(at);
    if (frame === undefined) break;
    const frameName = nameOf(frame);
    if (seen.has(frameName)) continue;
    seen.add(frameName);
    inclusive.set(frameName, (inclusive.get(frameName) ?? 0) + us);
  }
  byFunction.set(name, (byFunction.get(name) ?? 0) + us);
  byFile.set(file === '(native)' ? functionName : file, (byFile.get(file === '(native)' ? functionName : file) ?? 0) + us);
});
console.log(`busy ${(busy / 1e6).toFixed(1)} s, idle ${(idle / 1e6).toFixed(1)} s`);
console.log('\nself time by function:');
for (const line of top(byFunction, busy, count)) console.log(line);
console.log('\ntotal time (self and callees) by function:');
for (const line of top(inclusive, busy, count)) console.log(line);
console.log('\nself time by file or package:');
for (const line of top(byFile, busy, count)) console.log(line);
