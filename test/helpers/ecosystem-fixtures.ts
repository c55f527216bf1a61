/**
 * Test helpers shared by the ecosystems' tests: a fixture folder as an upload, scopes and edges by
 * label, and the growth measure of the linearity checks.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import type { Ecosystem, EcosystemInventory } from '../../src/ecosystems/types.js';
import type { Occurrence } from '../../src/model/model.js';
import type { InputFile } from '../../src/model/types.js';
import { buildThrough } from './ecosystem.js';
import { FIXTURES } from './fixtures.js';

function walk(dir: string): string[] {
  return readdirSync(dir).flatMap((f) => {
    const p = join(dir, f);
    return statSync(p).isDirectory() ? walk(p) : [p];
  });
}

/** The files of `test/fixtures/lockfiles/<ecosystem>/<set>` as an upload (paths relative to the set). */
export function fixtureUpload(ecosystem: string, set: string, only?: readonly string[]): InputFile[] {
  const root = join(FIXTURES, 'lockfiles', ecosystem, set);
  return walk(root)
    .sort()
    .map((p) => ({ path: relative(root, p), content: readFileSync(p, 'utf8') }))
    .filter((f) => only === undefined || only.includes(f.path));
}

/** `name@version[-platform]` (a Ruby platform build is an occurrence of its own). */
export const label = (o: Occurrence): string => `${o.name}@${o.version ?? ''}${o.facts['platform'] === undefined ? '' : `-${o.facts['platform']}`}`;

/** Labels of the non-root occurrences in a scope (`unknown`: the file records none). */
export function inScope(result: EcosystemInventory, scope: 'required' | 'optional' | 'dev' | 'unknown'): string[] {
  const roots = new Set(result.inventory.roots);
  return result.inventory.occurrences
    .filter((o) => !roots.has(o.ref))
    .filter((o) => (scope === 'unknown' ? !o.scopeKnown : o.scopeKnown && (scope === 'dev' ? o.dev : scope === 'optional' ? !o.dev && o.optional : !o.dev && !o.optional)))
    .map(label)
    .sort();
}

/** The edges of one occurrence as `label (kind)`. */
export function edgesFrom(result: EcosystemInventory, name: string, platform?: string): string[] {
  const byRef = new Map(result.inventory.occurrences.map((o) => [o.ref, o]));
  const from = result.inventory.occurrences.find((o) => o.name === name && o.facts['platform'] === platform);
  return (from?.dependencies ?? []).map((e) => `${byRef.get(e.ref) ? label(byRef.get(e.ref) as Occurrence) : e.ref} (${e.kind})`).sort();
}

/** V8's full collection, which test workers do not expose as `gc` (the flag is set at runtime). */
const collectGarbage = ((): (() => void) => {
  setFlagsFromString('--expose-gc');
  return runInNewContext('gc') as () => void;
})();

/**
 * The CPU time (user and system, in ms) this process spends in `run`: unlike the wall clock, it
 * does not count the time the machine gave to other processes (test files beside this one, a
 * second test run), which made growth ratios flaky on a loaded 2-core machine (22.8 against 14).
 */
export async function cpuTime(run: () => Promise<unknown>): Promise<number> {
  // What the previous run left on the heap is collected first, not during this run.
  collectGarbage();
  const before = process.cpuUsage();
  await run();
  const used = process.cpuUsage(before);
  return (used.user + used.system) / 1000;
}

/** The least CPU time of five runs of `run`. */
export async function fastestOf5(run: () => Promise<unknown>): Promise<number> {
  let best = Infinity;
  for (let i = 0; i < 5; i++) best = Math.min(best, await cpuTime(run));
  return best;
}

async function fastest(eco: Ecosystem, files: InputFile[]): Promise<number> {
  return fastestOf5(async () => {
    const result = await buildThrough(eco, files);
    if (result.inventory.occurrences.length === 0) throw new Error('the input gave no occurrences');
  });
}

/**
 * Growth, not speed (as test/sbom/parsers-linear.test.ts measures npm's): the build time of an
 * input of size 8n over that of size n, each the least CPU time of five runs (after one warm-up run).
 * A linear build stays well below the 64 a quadratic step gives. `n` must be large enough that
 * the small input is not favoured by the caches and the young generation: 1,500 Gemfile.lock specs
 * or composer.lock packages cost about 5 µs each against 8 µs in a file eight times larger (a
 * ratio of 11-15 with the bound at 14, and a flaky test), while from 3,000 on the cost per entry
 * stays near 8-10 µs (ratios of 8-10.5).
 */
export async function growth(eco: Ecosystem, make: (n: number) => InputFile, n: number): Promise<number> {
  await buildThrough(eco, [make(n)]);
  return leastOf3(GROWTH_BOUND, async () => (await fastest(eco, [make(8 * n)])) / Math.max(await fastest(eco, [make(n)]), 1));
}

export const GROWTH_BOUND = 14;

/**
 * A growth ratio measured again (up to three times in all) while it exceeds `bound`, the least
 * kept: test files running beside this one can slow the large input's runs more than the small
 * one's, and that noise passes, where a quadratic step (a ratio of 64) fails every time.
 */
export async function leastOf3(bound: number, measure: () => Promise<number>): Promise<number> {
  let least = Infinity;
  for (let attempt = 0; attempt < 3 && least >= bound; attempt++) least = Math.min(least, await measure());
  return least;
}
