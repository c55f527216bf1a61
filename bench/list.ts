/**
 * bench:list — prepare a package of 10,000 files (about 50 MB) in a real worker process (time and
 * the worker's peak RSS), then load POST /v1/list (limit 100, recursive, warm) and GET /v1/read
 * with autocannon at 100 connections, beside a Fastify hello-world measured in the same run.
 * Targets: list >= 30% of the hello-world req/s with p99 < 25 ms; preparation < 5 s, < 250 MB RSS.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { Redis } from 'ioredis';
import type { ListResponseType } from '../src/inventory/schemas.js';
import { freePort, LogWatcher } from '../test/helpers/cli.js';
import { startFixtureRegistry } from '../test/helpers/registry.js';
import { packageTarball } from '../test/helpers/tarball.js';
import { BENCH_RATE_LIMIT, benchDatabase, benchToken, stopProcesses, supervise, helloWorldCeiling, load, ms, peakRssMb, sourceFiles, waitForHttp } from './helpers.js';

const CLI = fileURLToPath(new URL('../dist/src/cli.js', import.meta.url));
const REDIS_URL = process.env['BENCH_REDIS_URL'] ?? 'redis://127.0.0.1:6379';
const prefix = `pkgscope-bench-list-${process.pid}`;

async function main(): Promise<void> {
  const files = sourceFiles(10_000);
  const bytes = Object.values(files).reduce((n, c) => n + Buffer.byteLength(c), 0);
  const tarball = await packageTarball(files);
  console.log(`package: ${Object.keys(files).length} files, ${(bytes / 1e6).toFixed(1)} MB (${(tarball.length / 1e6).toFixed(1)} MB gzipped)`);
  const registry = await startFixtureRegistry({ packages: { 'bench-big': { versions: { '1.0.0': { _tarball: tarball } } } } });
  const databaseUrl = await benchDatabase('pkgscope_bench_list');
  const token = await benchToken(databaseUrl);

  const port = await freePort();
  const env = { ...process.env, DATABASE_URL: databaseUrl, REDIS_URL, REDIS_PREFIX: prefix, ...BENCH_RATE_LIMIT, npm_config_registry: `${registry.url}/`, LOG_LEVEL: 'info' };
  const children: ChildProcess[] = [];
  const start = (args: string[], extra: Record<string, string>): ChildProcess => {
    const child = spawn(process.execPath, [...(process.env['BENCH_PROFILE_API'] && args[0] === 'api' ? ['--cpu-prof', '--cpu-prof-dir=/tmp/apiprof'] : []), CLI, ...args], { env: { ...env, ...extra }, stdio: ['ignore', 'pipe', 'inherit'] });
    children.push(supervise(child, args[0] ?? 'child'));
    return child;
  };
  const api = start(['api'], { PORT: String(port), LOG_LEVEL: 'warn' });
  const worker = start(['worker'], {});
  const workerLogs = new LogWatcher(worker);
  await workerLogs.waitFor((l) => l['msg'] === 'worker started');
  await waitForHttp(`http://127.0.0.1:${port}/healthz`);
  api.stdout?.resume();
  const rssBefore = peakRssMb(worker.pid ?? 0);

  // As HTTP clients (fetch, curl --compressed, browsers) do by default.
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'accept-encoding': 'gzip, deflate' };
  const started = performance.now();
  const res = await fetch(`http://127.0.0.1:${port}/v1/list`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ target: 'npm:bench-big@1.0.0', wait_timeout_ms: 120_000, limit: 1 }),
  });
  const page = (await res.json()) as ListResponseType;
  const ready = await workerLogs.waitFor((l) => l['msg'] === 'package inventory ready');
  console.log(
    `preparation: ${ms(performance.now() - started)} request→ready (worker's own measure ${String(ready['ms'])} ms), ` +
      `state ${String(page.code_index_state)}; worker peak RSS ${peakRssMb(worker.pid ?? 0).toFixed(0)} MB (${rssBefore.toFixed(0)} MB before)`,
  );

  const ceiling = await helloWorldCeiling(children, await freePort());
  const listBody = JSON.stringify({ target: 'npm:bench-big@1.0.0', recursive: true, limit: 100 });
  await autocannon({ url: `http://127.0.0.1:${port}/v1/list`, method: 'POST', headers, body: listBody, connections: 10, duration: 2 });
  const list = await load('POST /v1/list (limit 100, recursive)', { url: `http://127.0.0.1:${port}/v1/list`, method: 'POST', headers, body: listBody });
  const readUrl = `http://127.0.0.1:${port}/v1/read?${new URLSearchParams({ target: 'npm:bench-big@1.0.0', path: 'src/area7/part0/file7.js' }).toString()}`;
  if (process.env['BENCH_SKIP_READ'] === undefined) await load('GET /v1/read (5 KB file)', { url: readUrl, headers: { authorization: headers.authorization } });
  console.log(`list is ${((list / ceiling) * 100).toFixed(1)}% of the hello-world ceiling`);

  await stopProcesses(children);
  await registry.close();
  const redis = new Redis(REDIS_URL);
  const keys = await redis.keys(`${prefix}:*`);
  if (keys.length > 0) await redis.del(...keys);
  await redis.quit();
}

await main();
