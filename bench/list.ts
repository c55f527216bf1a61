/**
 * bench:list — prepare a package of 10,000 files (about 50 MB) in a real worker process (time and
 * the worker's peak RSS), then load POST /v1/list (limit 100, recursive, warm) and GET /v1/read
 * with autocannon at 100 connections, beside a Fastify hello-world measured in the same run.
 * Targets: list >= 30% of the hello-world req/s with p99 < 25 ms; preparation < 5 s, < 250 MB RSS.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { Redis } from 'ioredis';
import { createToken, ensureAccount } from '../src/accounts/tokens.js';
import { connectDatabase } from '../src/db/client.js';
import type { ListResponseType } from '../src/inventory/schemas.js';
import { freePort, LogWatcher } from '../test/helpers/cli.js';
import { startFixtureRegistry } from '../test/helpers/registry.js';
import { packageTarball } from '../test/helpers/tarball.js';
import { benchDatabase, ms } from './helpers.js';

const CLI = fileURLToPath(new URL('../dist/src/cli.js', import.meta.url));
const REDIS_URL = process.env['BENCH_REDIS_URL'] ?? 'redis://127.0.0.1:6379';
const prefix = `pkgscope-bench-list-${process.pid}`;

/** 10,000 files of varied source-like text, about 5 KB each. */
function bigPackage(): Record<string, string> {
  const files: Record<string, string> = {};
  const words = ['const', 'function', 'return', 'export', 'import', 'value', 'index', 'module', 'await', 'async', 'class', 'new'];
  for (let i = 0; i < 10_000; i++) {
    const dir = `src/area${i % 40}/part${(i >> 3) % 25}`;
    const lines: string[] = [];
    for (let l = 0; l < 137; l++) lines.push(`${words[(i * 7 + l) % words.length] ?? ''} name${i}_${l} = ${(i * 31 + l * 17) % 99991}; // ${words[(l * 5) % words.length] ?? ''}`);
    files[`${dir}/file${i}.${i % 3 === 0 ? 'ts' : 'js'}`] = `${lines.join('\n')}\n`;
  }
  return files;
}

function peakRssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? Number.NaN);
  return kb / 1024;
}

async function load(title: string, options: autocannon.Options): Promise<number> {
  const result = await autocannon({ connections: 100, duration: 10, ...options });
  const non2xx = result.non2xx + result.errors;
  console.log(
    `${title.padEnd(34)} ${result.requests.average.toFixed(0).padStart(6)} req/s  p50 ${result.latency.p50} ms  p99 ${result.latency.p99} ms` +
      (non2xx > 0 ? `  (${non2xx} non-2xx/errors)` : ''),
  );
  return result.requests.average;
}

async function main(): Promise<void> {
  const files = bigPackage();
  const bytes = Object.values(files).reduce((n, c) => n + Buffer.byteLength(c), 0);
  const tarball = await packageTarball(files);
  console.log(`package: ${Object.keys(files).length} files, ${(bytes / 1e6).toFixed(1)} MB (${(tarball.length / 1e6).toFixed(1)} MB gzipped)`);
  const registry = await startFixtureRegistry({ packages: { 'bench-big': { versions: { '1.0.0': { _tarball: tarball } } } } });
  const databaseUrl = await benchDatabase('pkgscope_bench_list');
  const database = connectDatabase(databaseUrl, { max: 2 });
  const token = (await createToken(database.db, await ensureAccount(database.db, 'bench'))).token;
  await database.close();

  const port = await freePort();
  const env = { ...process.env, DATABASE_URL: databaseUrl, REDIS_URL, REDIS_PREFIX: prefix, npm_config_registry: `${registry.url}/`, LOG_LEVEL: 'info' };
  const children: ChildProcess[] = [];
  const start = (args: string[], extra: Record<string, string>): ChildProcess => {
    const child = spawn(process.execPath, [...(process.env['BENCH_PROFILE_API'] && args[0] === 'api' ? ['--cpu-prof', '--cpu-prof-dir=/tmp/apiprof'] : []), CLI, ...args], { env: { ...env, ...extra }, stdio: ['ignore', 'pipe', 'inherit'] });
    children.push(child);
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

  const hello = spawn(
    process.execPath,
    ['-e', `require('fastify')().get('/', async () => ({ hello: 'world' })).listen({ port: ${await freePort()}, host: '127.0.0.1' }).then((a) => console.log(a))`],
    { stdio: ['ignore', 'pipe', 'inherit'], cwd: fileURLToPath(new URL('..', import.meta.url)) },
  );
  children.push(hello);
  const [helloUrl] = (await once(hello.stdout as NodeJS.ReadableStream, 'data')) as [Buffer];
  const ceiling = await load('fastify hello-world (ceiling)', { url: helloUrl.toString().trim() });
  const listBody = JSON.stringify({ target: 'npm:bench-big@1.0.0', recursive: true, limit: 100 });
  await autocannon({ url: `http://127.0.0.1:${port}/v1/list`, method: 'POST', headers, body: listBody, connections: 10, duration: 2 });
  const list = await load('POST /v1/list (limit 100, recursive)', { url: `http://127.0.0.1:${port}/v1/list`, method: 'POST', headers, body: listBody });
  const readUrl = `http://127.0.0.1:${port}/v1/read?${new URLSearchParams({ target: 'npm:bench-big@1.0.0', path: 'src/area7/part0/file7.js' }).toString()}`;
  if (process.env['BENCH_SKIP_READ'] === undefined) await load('GET /v1/read (5 KB file)', { url: readUrl, headers: { authorization: headers.authorization } });
  console.log(`list is ${((list / ceiling) * 100).toFixed(1)}% of the hello-world ceiling`);

  for (const child of children) child.kill('SIGTERM');
  await Promise.all(children.filter((c) => c.exitCode === null).map((c) => once(c, 'exit')));
  await registry.close();
  const redis = new Redis(REDIS_URL);
  const keys = await redis.keys(`${prefix}:*`);
  if (keys.length > 0) await redis.del(...keys);
  await redis.quit();
}

async function waitForHttp(url: string): Promise<void> {
  for (let i = 0; i < 100; i++) {
    try {
      if ((await fetch(url)).ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${url} did not answer`);
}

await main();
