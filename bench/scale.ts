/**
 * bench:scale — one analysis at scale: the 50,000-entry npm monorepo of bench/scale-lockfile.ts
 * (real names and versions, 25 workspaces, one package-lock.json), analysed
 *   1. by the built service's synchronous `POST /v1/experimental/sbom` (CycloneDX), once cold
 *      (every coordinate fetched from a local fixture registry and cached), then warm 3 times;
 *   2. by the CLI (`pkgscope sbom --format cyclonedx <dir>`) against the same registry, once to
 *      fill its disk cache, then warm 3 times;
 *   3. without the HTTP upload (whose limits refuse 50,000 entries; see below), in a process of
 *      its own with the API's wiring and configuration (bench/scale-warm.ts): on the analysis
 *      thread pool and in-process, output bound lifted; BENCH_CPU_PROF=<folder> profiles it.
 * Each run prints its wall time, the process's peak RSS (VmHWM: the API's since it started; each
 * CLI run's own) and the load average at its end. Before any request the upload is checked
 * against the service's limits, and each limit that refuses it is named.
 * Target: warm under 5 s, RSS under 1 GB.
 *
 * BENCH_SCALE_ENV='{"ANALYSIS_MAX_HEAP_MB":"2048"}' passes settings to the API process;
 * BENCH_SCALE_SEED changes the monorepo.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { request } from 'undici';
import { UPLOAD_LIMITS } from '../src/jobs/submission.js';
import { INPUT_LIMITS } from '../src/model/safe-parse.js';
import { UPLOAD_BODY_LIMIT } from '../src/routes/upload.js';
import { benchService, clearRedisPrefix, peakRssMb, stopProcesses, supervise, waitForHttp } from './helpers.js';
import { readVersions, scaleMonorepo, writeMonorepo } from './scale-lockfile.js';

const CLI = fileURLToPath(new URL('../dist/src/cli.js', import.meta.url));
const WARM_RUNS = 3;
const seconds = (ms: number): string => `${(ms / 1000).toFixed(2)} s`;
const load = (): string => loadavg().map((n) => n.toFixed(2)).join(' ');

const built = scaleMonorepo(readVersions(), { seed: Number(process.env['BENCH_SCALE_SEED'] ?? 35) });
const lockBytes = Buffer.byteLength(built.files['package-lock.json'] ?? '');
const files = Object.entries(built.files).map(([path, content]) => ({ path, content }));
const totalBytes = files.reduce((n, f) => n + Buffer.byteLength(f.content), 0);
const body = JSON.stringify({ format: 'cyclonedx', files });
console.log(
  `monorepo: ${built.entries} lockfile entries (${built.registryEntries} registry packages, ${built.distinct} distinct name@version, ` +
    `${built.nested} nested), ${files.length - 2} workspaces; package-lock.json ${(lockBytes / 1e6).toFixed(1)} MB, ` +
    `upload ${(totalBytes / 1e6).toFixed(1)} MB, JSON body ${(Buffer.byteLength(body) / 1e6).toFixed(1)} MB`,
);
const refusals = [
  lockBytes > UPLOAD_LIMITS.maxFileBytes ? `one file at most ${UPLOAD_LIMITS.maxFileBytes} bytes (UPLOAD_LIMITS.maxFileBytes): package-lock.json has ${lockBytes}` : null,
  totalBytes > UPLOAD_LIMITS.maxTotalBytes ? `files together at most ${UPLOAD_LIMITS.maxTotalBytes} bytes (UPLOAD_LIMITS.maxTotalBytes): ${totalBytes}` : null,
  Buffer.byteLength(body) > UPLOAD_BODY_LIMIT ? `request body at most ${UPLOAD_BODY_LIMIT} bytes: ${Buffer.byteLength(body)}` : null,
  files.length > UPLOAD_LIMITS.maxFiles ? `at most ${UPLOAD_LIMITS.maxFiles} files: ${files.length}` : null,
  built.entries > INPUT_LIMITS.maxEntries ? `at most ${INPUT_LIMITS.maxEntries} lockfile entries: ${built.entries}` : null,
].filter((r): r is string => r !== null);
for (const r of refusals) console.log(`limit refusing the upload: ${r}`);

const work = mkdtempSync(join(tmpdir(), 'pkgscope-bench-scale-'));
const project = join(work, 'project');
writeMonorepo(project, built.files);

const extra = JSON.parse(process.env['BENCH_SCALE_ENV'] ?? '{}') as Record<string, string>;
const service = await benchService('scale', { LOG_LEVEL: 'warn', ...extra });
const children: ChildProcess[] = [];
const api = supervise(spawn(process.execPath, [CLI, 'api'], { env: service.env, stdio: ['ignore', 'ignore', 'inherit'] }), 'api');
children.push(api);

try {
  // A loaded machine can take well over a minute to start the API; an exit ends the bench (supervise).
  await waitForHttp(`${service.base}/readyz`, 120_000);
  console.log(`API idle: peak RSS ${peakRssMb(api.pid ?? 0).toFixed(0)} MB, load ${load()}`);
  const headers = { authorization: `Bearer ${service.token}`, 'content-type': 'application/json' };
  for (let run = 0; run <= WARM_RUNS; run++) {
    const started = performance.now();
    const res = await request(`${service.base}/v1/experimental/sbom`, { method: 'POST', headers, body, headersTimeout: 600_000, bodyTimeout: 600_000 });
    const answer = await res.body.text();
    const elapsed = performance.now() - started;
    const label = run === 0 ? 'cold (registry → cache)' : `warm ${run}`;
    if (res.statusCode !== 200) {
      console.log(`POST /v1/experimental/sbom ${label}: ${res.statusCode} after ${seconds(elapsed)}: ${answer.slice(0, 600)}`);
      break;
    }
    const components = (JSON.parse(answer) as { components?: unknown[] }).components?.length ?? 0;
    console.log(
      `POST /v1/experimental/sbom ${label.padEnd(24)} ${seconds(elapsed).padStart(8)}  API peak RSS ${peakRssMb(api.pid ?? 0).toFixed(0)} MB  ` +
        `${(answer.length / 1e6).toFixed(1)} MB, ${components} components  load ${load()}`,
    );
  }
  const registryRequests = service.registry.requests.length;
  console.log(`registry requests during the API runs: ${registryRequests}`);

  // The CLI against the same registry, its own disk cache: one run fills it, then warm runs.
  const cache = join(work, 'cache');
  for (let run = 0; run <= WARM_RUNS; run++) {
    const out = join(work, 'cli.json');
    const rssFile = join(work, 'rss');
    const started = performance.now();
    const child = spawn('/usr/bin/time', ['-f', '%M', '-o', rssFile, process.execPath, CLI, 'sbom', '--format', 'cyclonedx', '--output', out, project], {
      env: { ...process.env, npm_config_registry: `${service.registry.url}/`, XDG_CACHE_HOME: cache },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const [code] = (await once(child, 'exit')) as [number | null];
    const elapsed = performance.now() - started;
    const label = run === 0 ? 'cold (registry → cache)' : `warm ${run}`;
    if (code !== 0) {
      const rss = Number(readFileSync(rssFile, 'utf8').trim().split('\n').pop()) / 1024;
      console.log(`pkgscope sbom (CLI) ${label.padEnd(24)} exit ${String(code)} after ${seconds(elapsed)}  peak RSS ${rss.toFixed(0)} MB  load ${load()}: ${stderr.trim().slice(-300)}`);
      continue;
    }
    const rssMb = Number(readFileSync(rssFile, 'utf8').trim().split('\n').pop()) / 1024;
    console.log(`pkgscope sbom (CLI) ${label.padEnd(24)} ${seconds(elapsed).padStart(8)}  peak RSS ${rssMb.toFixed(0)} MB  load ${load()}`);
  }

  // The same analysis without the HTTP upload, in a process of its own with the API's wiring and
  // configuration: its own cold run fills its cache (a database of its own), then warm runs.
  const warmService = await benchService('scale-warm', { LOG_LEVEL: 'warn', ...extra }, service.registry);
  const profile = process.env['BENCH_CPU_PROF'];
  const warm = spawn(
    process.execPath,
    ['--import', 'tsx', '--expose-gc', ...(profile ? ['--cpu-prof', `--cpu-prof-dir=${profile}`] : []), fileURLToPath(new URL('scale-warm.ts', import.meta.url)), project],
    { env: warmService.env, stdio: ['ignore', 'inherit', 'inherit'] },
  );
  await once(warm, 'exit');
} finally {
  await stopProcesses(children);
  await service.registry.close();
  await clearRedisPrefix(service.env['REDIS_URL'] ?? '', service.prefix);
  rmSync(work, { recursive: true, force: true });
}
