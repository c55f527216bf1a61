/**
 * Child of bench/scale.ts: the synchronous endpoint's analysis of the scale monorepo without its
 * HTTP upload, in a process of its own, so its times and peak RSS are the analysis's alone.
 * The API's own wiring, from the same configuration (environment): its registry analysis with the
 * Postgres metadata cache (`registryAnalysisFor`) and its analysis thread pool (`analysisPoolFor`,
 * ANALYSIS_MAX_HEAP_MB and ANALYSIS_TIME_LIMIT_MS included). One cold run fills the cache from
 * the registry npm_config_registry names; then 3 warm runs on the pool, then 3 warm `analyze()`
 * runs on this thread (where --cpu-prof sees them: BENCH_CPU_PROF in bench/scale.ts).
 * The output bound is lifted to the size of each document; the default is printed beside.
 *
 *   tsx bench/scale-warm.ts <project dir> [format]
 */
import { loadavg } from 'node:os';
import { readInputs } from '../src/commands/sbom-inputs.js';
import { loadConfig } from '../src/config.js';
import { connectDatabase } from '../src/db/client.js';
import { createLogger } from '../src/logger.js';
import { MAX_OUTPUT_BYTES, type AnalysisPhase, type OutputFormat } from '../src/model/types.js';
import { Metrics } from '../src/ops/metrics.js';
import { analysisPoolFor, registryAnalysisFor } from '../src/processes/wiring.js';
import { loadNpmOptions } from '../src/ecosystems/npm/options.js';
import { analyze, type AnalyzeDeps } from '../src/sbom/analyze.js';
import type { Analyze } from '../src/jobs/runner.js';

const [dir = '', format = 'cyclonedx'] = process.argv.slice(2) as [string?, OutputFormat?];
const config = loadConfig(process.env);
const database = connectDatabase(config.databaseUrl, { max: 4 });
const metrics = new Metrics('api');
const registry = await registryAnalysisFor(config, database, await loadNpmOptions(), metrics);
const pool = analysisPoolFor(config, createLogger('warn'));
const { files } = await readInputs([dir]);
const seconds = (ms: number): string => `${(ms / 1000).toFixed(2)} s`;
const load = (): string => loadavg().map((n) => n.toFixed(2)).join(' ');
const rssMb = (): string => `${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MB`;
const gc = (globalThis as { gc?: () => void }).gc;
const deps: AnalyzeDeps = { ...registry, maxOutputBytes: Number.MAX_SAFE_INTEGER };

async function run(label: string, how: Analyze): Promise<void> {
  gc?.();
  const marks: Partial<Record<AnalysisPhase, number>> = {};
  const start = performance.now();
  const cpu = process.cpuUsage();
  try {
    const result = await how(files, format, { ...deps, onProgress: (p) => void (marks[p.phase] ??= performance.now()) });
    const end = performance.now();
    const used = process.cpuUsage(cpu);
    const over = result.byteSize > MAX_OUTPUT_BYTES ? ` (over the default output bound, ${MAX_OUTPUT_BYTES} bytes)` : '';
    console.log(
      `${label.padEnd(34)} ${seconds(end - start).padStart(8)} wall, this process's CPU ${seconds((used.user + used.system) / 1000)}  (parsing ${seconds((marks.resolving ?? start) - start)}, resolving ${seconds((marks.enriching ?? 0) - (marks.resolving ?? 0))}, ` +
        `enriching ${seconds((marks.rendering ?? 0) - (marks.enriching ?? 0))}, rendering+validation ${seconds(end - (marks.rendering ?? 0))})  ` +
        `${format} ${(result.byteSize / 1e6).toFixed(1)} MB${over}, ${result.counts.coordinates_total ?? '?'} coordinates, ${result.counts.cached ?? 0} cached, ${result.counts.fetched ?? 0} fetched  ` +
        `process peak RSS ${rssMb()}  load ${load()}`,
    );
  } catch (error) {
    console.log(`${label.padEnd(34)} failed after ${seconds(performance.now() - start)}: ${(error as Error).message}  process peak RSS ${rssMb()}`);
  }
}

try {
  await run('cold, analysis thread (fills cache)', pool.analyze);
  for (let i = 1; i <= 3; i++) await run(`warm ${i}, analysis thread`, pool.analyze);
  for (let i = 1; i <= 3; i++) await run(`warm ${i}, analyze() on this thread`, analyze);
} finally {
  await pool.close();
  await registry.close();
  await database.close();
}
