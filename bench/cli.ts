/**
 * bench:cli — whole `pkgscope sbom` processes on the ~2,700-entry lockfile of bench:sbom, beside
 * cdxgen on the same folder, runs alternating, medians:
 *   - cold: an empty metadata cache, every coordinate from a local registry answering in 20 ms,
 *     median of 3 (target: at most 1/3 of cdxgen's wall time);
 *   - warm: the cache filled by the cold run (target: at most 0.08 of cdxgen's wall time);
 *   - `pkgscope --help` start-up (target: under 150 ms).
 * The warm documents must equal the cold one but for the serial number and timestamp.
 *
 * cdxgen comes from `CDXGEN_BIN`, else it is installed once (pinned) under the OS temp folder from
 * the npm registry your npm configuration names; without it the comparison is skipped.
 */
import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { anyPackage, startFixtureRegistry } from '../test/helpers/registry.js';
import { ms } from './helpers.js';

const CDXGEN_VERSION = '12.8.4';
const RUNS = Number(process.env['BENCH_RUNS'] ?? 5);
const COLD_RUNS = 3;
const cli = fileURLToPath(new URL('../dist/src/cli.js', import.meta.url));
const work = mkdtempSync(join(tmpdir(), 'pkgscope-bench-cli-'));
const project = join(work, 'project');
mkdirSync(project);
cpSync(fileURLToPath(new URL('fixtures/large', import.meta.url)), project, { recursive: true });

function cdxgenBin(): string | null {
  const given = process.env['CDXGEN_BIN'];
  if (given) return given;
  const prefix = join(tmpdir(), `pkgscope-bench-cdxgen-${CDXGEN_VERSION}`);
  const bin = join(prefix, 'node_modules', '.bin', 'cdxgen');
  if (existsSync(bin)) return bin;
  console.log(`installing cdxgen ${CDXGEN_VERSION} under ${prefix} …`);
  const installed = spawnSync('npm', ['install', '--prefix', prefix, '--no-audit', '--no-fund', `@cyclonedx/cdxgen@${CDXGEN_VERSION}`], { stdio: 'ignore' });
  return installed.status === 0 && existsSync(bin) ? bin : null;
}

/** Wall time of one whole process, from spawn to exit. */
async function timed(command: string, args: readonly string[], env: NodeJS.ProcessEnv = {}): Promise<number> {
  const start = performance.now();
  // Not spawnSync: the fixture registry answers from this process's event loop.
  const child = spawn(command, args, { stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, ...env } });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const [code] = (await once(child, 'exit')) as [number | null];
  const elapsed = performance.now() - start;
  if (code !== 0) throw new Error(`${command} ${args.join(' ')} exited with ${code}: ${stderr.slice(-2000)}`);
  return elapsed;
}

const median = (values: readonly number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN;

/** The document without what differs from run to run. */
function stable(file: string): string {
  const doc = JSON.parse(readFileSync(file, 'utf8')) as { serialNumber?: string; metadata?: { timestamp?: string } };
  delete doc.serialNumber;
  if (doc.metadata) delete doc.metadata.timestamp;
  return JSON.stringify(doc);
}

const help: number[] = [];
for (let i = 0; i < 11; i++) help.push(await timed(process.execPath, [cli, '--help']));
console.log(`pkgscope --help: median of 11 ${ms(median(help))} (target < 150 ms)`);

const registry = await startFixtureRegistry({ fallback: anyPackage, latencyMs: 20 });
const env = { npm_config_registry: `${registry.url}/`, XDG_CACHE_HOME: join(work, 'cache') };
const coldOut = join(work, 'cold.json');
// Cold runs, each from an empty cache; the last one's cache serves the warm runs.
const colds: number[] = [];
for (let i = 0; i < COLD_RUNS; i++) {
  rmSync(join(work, 'cache'), { recursive: true, force: true });
  colds.push(await timed(process.execPath, [cli, 'sbom', '--output', coldOut, project], env));
}
const cold = median(colds);
console.log(`pkgscope sbom, cold cache, registry latency 20 ms: median of ${COLD_RUNS} ${ms(cold)} (runs: ${colds.map((t) => t.toFixed(0)).join(', ')}; ${registry.requests.length / COLD_RUNS} registry requests each)`);

const cdxgen = cdxgenBin();
const ours: number[] = [];
const theirs: number[] = [];
const warmOut = join(work, 'warm.json');
const fetchedCold = registry.requests.length;
for (let i = 0; i < RUNS; i++) {
  ours.push(await timed(process.execPath, [cli, 'sbom', '--output', warmOut, project], env));
  if (cdxgen) theirs.push(await timed(cdxgen, ['-t', 'js', '--no-recurse', '--no-install-deps', '-o', join(work, 'cdxgen.json'), project], { CDXGEN_DEBUG_MODE: '' }));
}
await registry.close();
if (registry.requests.length !== fetchedCold) throw new Error(`warm runs reached the registry ${registry.requests.length - fetchedCold} times`);
if (stable(warmOut) !== stable(coldOut)) throw new Error('the warm document differs from the cold one');
console.log(`pkgscope sbom, warm cache: median of ${RUNS} ${ms(median(ours))} (runs: ${ours.map((t) => t.toFixed(0)).join(', ')})`);
if (cdxgen) {
  const them = median(theirs);
  console.log(`cdxgen ${CDXGEN_VERSION} -t js: median of ${RUNS} ${ms(them)} (runs: ${theirs.map((t) => t.toFixed(0)).join(', ')})`);
  console.log(`ratio warm: ${(median(ours) / them).toFixed(3)} (target <= 0.080); ratio cold: ${(cold / them).toFixed(3)} (target <= 0.333)`);
} else {
  console.log('cdxgen could not be installed: no comparison');
}
rmSync(work, { recursive: true, force: true });
