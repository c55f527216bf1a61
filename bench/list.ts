/**
 * bench:list — prepare a package of 10,000 files (about 50 MB) in a real worker process (time and
 * the worker's peak RSS), wait until the worker has indexed its texts and the service is idle,
 * then measure POST /v1/list (limit 100, recursive, warm) and GET /v1/read against a Fastify
 * hello-world, alternating hello-world and measured runs (100 connections, 10 s each, BENCH_ROUNDS
 * rounds), each started with the API and the worker idle; the load average is printed beside
 * each figure.
 * Targets: list >= 30% of the hello-world req/s with p99 < 25 ms; read >= 50%; preparation < 5 s, < 250 MB RSS.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import type { ListResponseType, ReadResponseType } from '../src/routes/inventory/schemas.js';
import { freePort, LogWatcher } from '../test/helpers/cli.js';
import { startFixtureRegistry } from '../test/helpers/registry.js';
import { packageTarball } from '../test/helpers/tarball.js';
import {
  BENCH_REDIS_URL,
  alternate,
  benchService,
  clearRedisPrefix,
  loadAverage,
  ms,
  peakRssMb,
  sourceFiles,
  startHelloWorld,
  stopProcesses,
  supervise,
  waitForHttp,
  waitUntilIdle,
  type Comparison,
} from './helpers.js';

const CLI = fileURLToPath(new URL('../dist/src/cli.js', import.meta.url));
const TARGET = 'npm:bench-big@1.0.0';
const READ_PATH = 'src/area7/part0/file7.js';

function verdict(comparison: Comparison, minRatio: number, maxP99: number | null): string {
  const met = comparison.medianRatio >= minRatio && (maxP99 === null || comparison.worstP99 < maxP99);
  return `${comparison.title}: median ${(comparison.medianRatio * 100).toFixed(1)} % (target >= ${minRatio * 100} %)` +
    (maxP99 === null ? '' : `, worst p99 ${comparison.worstP99} ms (target < ${maxP99} ms)`) + `: ${met ? 'met' : 'NOT met'}`;
}

async function main(): Promise<void> {
  const files = sourceFiles(10_000);
  const bytes = Object.values(files).reduce((n, c) => n + Buffer.byteLength(c), 0);
  const tarball = await packageTarball(files);
  console.log(`package: ${Object.keys(files).length} files, ${(bytes / 1e6).toFixed(1)} MB (${(tarball.length / 1e6).toFixed(1)} MB gzipped)`);
  const registry = await startFixtureRegistry({ packages: { 'bench-big': { versions: { '1.0.0': { _tarball: tarball } } } } });
  const { databaseUrl, token, port, base, prefix, env } = await benchService('list', { LOG_LEVEL: 'info' }, registry);

  const children: ChildProcess[] = [];
  // The API logs as it does by default (a line per request), into a file as a log shipper's pipe would take them.
  const apiLog = join(tmpdir(), `pkgscope-bench-list-api-${process.pid}.log`);
  const apiOut = openSync(apiLog, 'w');
  const start = (args: string[], extra: Record<string, string>, stdout: 'pipe' | number): ChildProcess => {
    const profile = process.env['BENCH_PROFILE_API'] !== undefined && args[0] === 'api' ? ['--cpu-prof', '--cpu-prof-dir=/tmp/apiprof'] : [];
    const child = spawn(process.execPath, [...profile, CLI, ...args], { env: { ...env, ...extra }, stdio: ['ignore', stdout, 'inherit'] });
    children.push(supervise(child, args[0] ?? 'child'));
    return child;
  };
  const api = start(['api'], { PORT: String(port), LOG_LEVEL: process.env['BENCH_LOG_LEVEL'] ?? 'info' }, apiOut);
  closeSync(apiOut);
  const worker = start(['worker'], {}, 'pipe');
  const workerLogs = new LogWatcher(worker);
  await workerLogs.waitFor((l) => l['msg'] === 'worker started');
  await waitForHttp(`${base}/healthz`);
  const rssBefore = peakRssMb(worker.pid ?? 0);

  // As HTTP clients (fetch, curl --compressed, browsers) do by default.
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'accept-encoding': 'gzip, deflate' };
  const started = performance.now();
  const res = await fetch(`${base}/v1/list`, { method: 'POST', headers, body: JSON.stringify({ target: TARGET, wait_timeout_ms: 120_000, limit: 1 }) });
  const page = (await res.json()) as ListResponseType;
  const ready = await workerLogs.waitFor((l) => l['msg'] === 'package inventory ready');
  console.log(
    `preparation: ${ms(performance.now() - started)} request→ready (worker's own measure ${String(ready['ms'])} ms), ` +
      `state ${String(page.code_index_state)}; worker peak RSS ${peakRssMb(worker.pid ?? 0).toFixed(0)} MB (${rssBefore.toFixed(0)} MB before) (${loadAverage()})`,
  );
  // Grep's text index is written after the snapshot is ready; then Postgres is asked to vacuum
  // and analyse what was written, so autovacuum does not start in the middle of a run.
  const indexed = await workerLogs.waitFor((l) => l['msg'] === 'package texts indexed');
  console.log(`text index: ${String(indexed['texts'])} texts by ${String(indexed['ms'])} ms`);
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  await client.query('VACUUM (ANALYZE)');
  await client.end();

  const service = [
    { name: 'api', pid: api.pid ?? 0 },
    { name: 'worker', pid: worker.pid ?? 0 },
  ];
  console.log(`service idle after preparation (${await waitUntilIdle(service)})`);
  const ceiling = await startHelloWorld(children, await freePort());

  const listBody = JSON.stringify({ target: TARGET, recursive: true, limit: 100 });
  const check = (await (await fetch(`${base}/v1/list`, { method: 'POST', headers, body: listBody })).json()) as ListResponseType;
  if (check.entries.length !== 100 || !check.has_more) throw new Error(`the list page holds ${check.entries.length} entries, not a full page of 100`);
  const list = await alternate({ title: 'POST /v1/list (limit 100, recursive)', ceiling, idle: service, measured: { url: `${base}/v1/list`, method: 'POST', headers, body: listBody } });

  let read: Comparison | null = null;
  if (process.env['BENCH_SKIP_READ'] === undefined) {
    const readUrl = `${base}/v1/read?${new URLSearchParams({ target: TARGET, path: READ_PATH }).toString()}`;
    const readHeaders = { authorization: headers.authorization, 'accept-encoding': headers['accept-encoding'] };
    const file = (await (await fetch(readUrl, { headers: readHeaders })).json()) as ReadResponseType;
    if (file.content !== files[READ_PATH]) throw new Error(`GET /v1/read did not answer ${READ_PATH}'s content`);
    read = await alternate({ title: `GET /v1/read (${(Buffer.byteLength(file.content) / 1024).toFixed(1)} KB file)`, ceiling, idle: service, measured: { url: readUrl, headers: readHeaders } });
  }

  console.log(verdict(list, 0.3, 25));
  if (read !== null) console.log(verdict(read, 0.5, null));

  await stopProcesses(children);
  await registry.close();
  await clearRedisPrefix(BENCH_REDIS_URL, prefix);
  await rm(apiLog, { force: true });
}

await main();
