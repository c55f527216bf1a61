/**
 * The scale monorepo's analysis (bench/scale-lockfile.ts) without Postgres, Redis or a registry:
 * metadata for every coordinate comes from memory, as the fixture registry would answer it, so
 * that a run's CPU is parsing, rendering and validation only. For profiling and A/B comparisons:
 *
 *   tsx bench/scale-cpu.ts [--runs N] [--format cyclonedx|spdx|text] [--thread] [--out FILE] [--small] [--mem]
 *
 * --thread runs on an analysis thread pool (as the API does) instead of this thread; --out writes
 * the last document (serial number and timestamps fixed) to compare builds byte for byte; --small
 * analyses the jobs benchmarks' 83-entry lockfile instead; --mem prints the live heap at each phase
 * (a full collection first: needs --expose-gc, and slows the run). Run with `node --cpu-prof --import tsx` to profile.
 */
import { writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { analyze, type AnalyzeDeps } from '../src/sbom/analyze.js';
import type { Coordinate, Enricher, EnrichmentResult } from '../src/model/enrich-types.js';
import { coordinateKey, type PackageMetadata } from '../src/model/metadata.js';
import type { AnalysisPhase, InputFile, OutputFormat } from '../src/model/types.js';
import { createAnalysisPool } from '../src/threads/analysis-pool.js';
import { benchLockfile } from './helpers.js';
import { readVersions, scaleMonorepo } from './scale-lockfile.js';

const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '3' },
    format: { type: 'string', default: 'cyclonedx' },
    thread: { type: 'boolean', default: false },
    out: { type: 'string' },
    small: { type: 'boolean', default: false },
    mem: { type: 'boolean', default: false },
  },
});
const format = values.format as OutputFormat;
const runs = Number(values.runs);

function scaleFiles(): InputFile[] {
  const built = scaleMonorepo(readVersions(), { seed: 35 });
  return Object.entries(built.files).map(([path, content]) => ({ path, content }));
}

/** The jobs benchmarks' 83-entry lockfile. */
function smallFiles(): InputFile[] {
  return [{ path: 'package-lock.json', content: benchLockfile(83) }];
}

/** What the fixture registry's packuments give: a license and a description. */
const memoryRegistry: Enricher = {
  enrich(coordinates: readonly Coordinate[]): Promise<EnrichmentResult> {
    const metadata = new Map<string, PackageMetadata>();
    for (const c of coordinates) {
      metadata.set(coordinateKey(c.ecosystem, c.name, c.version), {
        license: 'MIT',
        description: `${c.name} ${c.version} from the fixture registry`,
        homepage: null,
        repository: null,
        author: null,
        deprecated: null,
        supplier: null,
      });
    }
    return Promise.resolve({ metadata, failed: [] });
  },
};

const files = values.small ? smallFiles() : scaleFiles();
const pool = values.thread ? createAnalysisPool({ threads: 1, maxQueue: 4, budgetMs: 600_000, maxHeapMb: 512 }) : null;
const run = pool ? pool.analyze : analyze;
const seconds = (ms: number): string => `${(ms / 1000).toFixed(2)} s`;
const gc = (globalThis as { gc?: () => void }).gc;
const deps: AnalyzeDeps = { registry: memoryRegistry, maxOutputBytes: Number.MAX_SAFE_INTEGER, now: () => new Date('2026-01-01T00:00:00Z') };

const cpus: number[] = [];
try {
  for (let i = 1; i <= runs; i++) {
    gc?.();
    const marks: Partial<Record<AnalysisPhase, number>> = {};
    const start = performance.now();
    const cpu = process.cpuUsage();
    const live = (label: string): void => {
      // Live heap at each phase (after a full collection): where the memory is held. Slows the run.
      gc?.();
      const m = process.memoryUsage();
      console.log(`  ${label}: heap used ${(m.heapUsed / 1e6).toFixed(0)} MB, external ${(m.external / 1e6).toFixed(0)} MB, RSS ${(m.rss / 1e6).toFixed(0)} MB`);
    };
    const onProgress = (p: { phase: AnalysisPhase }): void => {
      if (marks[p.phase] !== undefined) return;
      if (values.mem) live(`entering ${p.phase}`);
      marks[p.phase] = performance.now();
    };
    const result = await run(files, format, { ...deps, onProgress });
    if (values.mem) live('done, document held');
    const end = performance.now();
    const used = process.cpuUsage(cpu);
    cpus.push((used.user + used.system) / 1000);
    if (runs <= 10) console.log(
      `run ${i}: ${seconds(end - start)} wall, CPU ${seconds((used.user + used.system) / 1000)} (parse ${seconds((marks.enriching ?? start) - start)}, ` +
        `render+validate ${seconds(end - (marks.rendering ?? end))}), ${(result.byteSize / 1e6).toFixed(1)} MB, ` +
        `peak RSS ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MB, load ${loadavg().map((n) => n.toFixed(2)).join(' ')}`,
    );
    if (i === runs && values.out) writeFileSync(values.out, result.document.replace(/"serialNumber":"urn:uuid:[0-9a-f-]+"/, '"serialNumber":"x"'));
  }
  if (runs > 10) {
    // Many runs (a small analysis): the median CPU per run of the second half, after warm-up.
    const later = cpus.slice(Math.floor(runs / 2)).sort((a, b) => a - b);
    console.log(`${runs} runs: median CPU per run of the last ${later.length} ${(later[Math.floor(later.length / 2)] ?? 0).toFixed(3)} ms, load ${loadavg().map((n) => n.toFixed(2)).join(' ')}`);
  }
} finally {
  await pool?.close();
}
