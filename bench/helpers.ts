import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import pg from 'pg';
import { Redis } from 'ioredis';
import { createToken, ensureAccount } from '../src/accounts/tokens.js';
import { DEFAULT_ANALYSIS_THREADS } from '../src/config.js';
import { connectDatabase } from '../src/db/client.js';
import { runMigrations } from '../src/db/migrate.js';
import { freePort } from '../test/helpers/cli.js';
import { anyPackage, startFixtureRegistry, type FixtureRegistry } from '../test/helpers/registry.js';
import { deleteKeysUnder } from '../test/helpers/services.js';

/** A fresh, migrated database for one benchmark run (dropped and recreated each time). */
export async function benchDatabase(name: string): Promise<string> {
  const admin = new pg.Client({ connectionString: process.env['BENCH_PG_ADMIN_URL'] ?? 'postgres://postgres@127.0.0.1:5432/postgres' });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS ${pg.escapeIdentifier(name)} WITH (FORCE)`);
  await admin.end();
  const url = new URL(process.env['BENCH_PG_ADMIN_URL'] ?? 'postgres://postgres@127.0.0.1:5432/postgres');
  url.pathname = `/${name}`;
  await runMigrations(url.toString());
  return url.toString();
}

export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN;
}

export const ms = (n: number): string => `${n.toFixed(1)} ms`;

/** `count` files of varied source-like text, about 5 KB each, spread over 1,000 folders. */
export function sourceFiles(count: number): Record<string, string> {
  const files: Record<string, string> = {};
  const words = ['const', 'function', 'return', 'export', 'import', 'value', 'index', 'module', 'await', 'async', 'class', 'new'];
  for (let i = 0; i < count; i++) {
    const dir = `src/area${i % 40}/part${(i >> 3) % 25}`;
    const lines: string[] = [];
    for (let l = 0; l < 137; l++) lines.push(`${words[(i * 7 + l) % words.length] ?? ''} name${i}_${l} = ${(i * 31 + l * 17) % 99991}; // ${words[(l * 5) % words.length] ?? ''}`);
    files[`${dir}/file${i}.${i % 3 === 0 ? 'ts' : 'js'}`] = `${lines.join('\n')}\n`;
  }
  return files;
}

/** A process's peak resident set (VmHWM), in MB. */
export function peakRssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? Number.NaN);
  return kb / 1024;
}

/** Loads a URL with autocannon (100 connections, 10 s unless overridden), prints and returns req/s. */
export async function load(title: string, options: autocannon.Options): Promise<number> {
  const result = await autocannon({ connections: 100, duration: 10, ...options });
  const non2xx = result.non2xx + result.errors;
  console.log(
    `${title.padEnd(40)} ${result.requests.average.toFixed(0).padStart(6)} req/s  p50 ${result.latency.p50} ms  p99 ${result.latency.p99} ms` +
      (non2xx > 0 ? `  (${non2xx} non-2xx/errors)` : ''),
  );
  return result.requests.average;
}

/** Resolves once `url` answers 2xx (a freshly spawned server). */
export async function waitForHttp(url: string): Promise<void> {
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

/**
 * The ceiling figures are measured against: a Fastify hello-world in its own process, loaded like
 * the service. The child is pushed to `children` (the caller stops it).
 */
export async function helloWorldCeiling(children: ChildProcess[], port: number): Promise<number> {
  const hello = spawn(
    process.execPath,
    ['-e', `require('fastify')().get('/', async () => ({ hello: 'world' })).listen({ port: ${port}, host: '127.0.0.1' }).then((a) => console.log(a))`],
    { stdio: ['ignore', 'pipe', 'inherit'], cwd: fileURLToPath(new URL('..', import.meta.url)) },
  );
  children.push(hello);
  const [url] = (await once(hello.stdout as NodeJS.ReadableStream, 'data')) as [Buffer];
  return load('fastify hello-world (ceiling)', { url: url.toString().trim() });
}

/**
 * The benchmarks load one account far past the default rate limit; the limiter stays on (its Redis
 * round trip is part of every figure) with a ceiling no run reaches.
 */
export const BENCH_RATE_LIMIT = { RATE_LIMIT_PER_ACCOUNT: '1000000' } as const;

const stopping = new WeakSet<ChildProcess>();

/** Ends the benchmark with a message when a service process dies on its own (bad configuration, crash). */
export function supervise(child: ChildProcess, name: string): ChildProcess {
  child.once('exit', (code, signal) => {
    if (stopping.has(child)) return;
    console.error(`${name} exited unexpectedly (code ${String(code)}, signal ${String(signal)}); its output is above`);
    process.exit(1);
  });
  return child;
}

/** Stops service processes gracefully (SIGTERM) and waits for them. */
export async function stopProcesses(children: readonly ChildProcess[]): Promise<void> {
  const running = children.filter((c) => c.exitCode === null && c.signalCode === null);
  for (const child of running) {
    stopping.add(child);
    child.kill('SIGTERM');
  }
  await Promise.all(running.map((c) => once(c, 'exit')));
}

/**
 * Unmeasured jobs before a measured run of `workers` fresh worker processes: 200 for each of
 * their analysis threads (as many per process as the configuration gives by default). A fresh
 * thread's first hundred analyses of a small lockfile cost V8's optimisation of the pipeline,
 * about four times the CPU of the later ones (10.5 against 2.1–2.9 ms each), and jobs are spread
 * over the threads: a measured run that began sooner measured the warm-up with it.
 */
export function warmupJobs(workers: number): number {
  return 200 * workers * DEFAULT_ANALYSIS_THREADS;
}

/** A package-lock.json v3 with `count` registry packages, every tenth nested under the one before, with edges. */
export function benchLockfile(count: number): string {
  const packages: Record<string, unknown> = {};
  const rootDeps: Record<string, string> = {};
  for (let i = 0; i < count; i++) {
    const name = `bench-pkg-${i}`;
    const path = i % 10 === 9 ? `node_modules/bench-pkg-${i - 1}/node_modules/${name}` : `node_modules/${name}`;
    packages[path] = {
      version: `1.${i}.0`,
      integrity: `sha512-${Buffer.alloc(64, i).toString('base64')}`,
      license: 'MIT',
      ...(i % 10 === 8 && i + 1 < count ? { dependencies: { [`bench-pkg-${i + 1}`]: '^1.0.0' } } : {}),
    };
    if (i % 10 !== 9) rootDeps[name] = `^1.${i}.0`;
  }
  packages[''] = { name: 'bench-app', version: '1.0.0', dependencies: rootDeps };
  return JSON.stringify({ name: 'bench-app', version: '1.0.0', lockfileVersion: 3, requires: true, packages });
}

/** A bearer token of a fresh `bench` account in the benchmark's database. */
export async function benchToken(databaseUrl: string): Promise<string> {
  const database = connectDatabase(databaseUrl, { max: 2 });
  try {
    return (await createToken(database.db, await ensureAccount(database.db, 'bench'))).token;
  } finally {
    await database.close();
  }
}

/** Deletes every key a benchmark's processes wrote under their Redis prefix. */
export async function clearRedisPrefix(redisUrl: string, prefix: string): Promise<void> {
  const redis = new Redis(redisUrl);
  await deleteKeysUnder(redis, prefix);
  await redis.quit();
}

/** Where benchmarks find Redis. */
export const BENCH_REDIS_URL = process.env['BENCH_REDIS_URL'] ?? 'redis://127.0.0.1:6379';

/** What a benchmark runs the service with: a fresh database and its token, a fixture npm registry, a free port and a Redis prefix of its own. */
export interface BenchService {
  readonly databaseUrl: string;
  readonly token: string;
  readonly registry: FixtureRegistry;
  readonly port: number;
  readonly base: string;
  readonly prefix: string;
  /** The service's environment: the above, the raised rate limit, then `extra`. */
  readonly env: NodeJS.ProcessEnv;
}

/** Sets up a benchmark's service (`name` names its database and Redis prefix); `registry` defaults to one answering any package. */
export async function benchService(name: string, extra: Record<string, string> = {}, registry?: FixtureRegistry): Promise<BenchService> {
  const databaseUrl = await benchDatabase(`pkgscope_bench_${name.replaceAll('-', '_')}`);
  const token = await benchToken(databaseUrl);
  const npm = registry ?? (await startFixtureRegistry({ fallback: anyPackage }));
  const port = await freePort();
  const prefix = `pkgscope-bench-${name}-${process.pid}`;
  const env = {
    ...process.env,
    DATABASE_URL: databaseUrl,
    REDIS_URL: BENCH_REDIS_URL,
    REDIS_PREFIX: prefix,
    PORT: String(port),
    npm_config_registry: `${npm.url}/`,
    ...BENCH_RATE_LIMIT,
    ...extra,
  };
  return { databaseUrl, token, registry: npm, port, base: `http://127.0.0.1:${port}`, prefix, env };
}

/**
 * CPU time (user + system, ms) spent so far by the processes on this machine, grouped by role:
 * the service's node processes by their pkgscope command (`api`, `worker`, `start`), Postgres,
 * Redis, and this benchmark process. Read from /proc (Linux); empty elsewhere. A process that
 * ended between two readings drops out of both.
 */
export function cpuByRole(): Map<string, number> {
  const roles = new Map<string, number>();
  let pids: string[];
  try {
    pids = readdirSync('/proc').filter((entry) => /^\d+$/.test(entry));
  } catch {
    return roles;
  }
  const tick = 10; // ms per clock tick (USER_HZ is 100 on Linux)
  for (const pid of pids) {
    let stat: string;
    let cmdline: string[];
    try {
      stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
    } catch {
      continue;
    }
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const cpu = (Number(fields[11]) + Number(fields[12])) * tick;
    const command = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
    let role: string | null = null;
    if (Number(pid) === process.pid) role = 'benchmark';
    else if (command.startsWith('postgres')) role = 'postgres';
    else if (command.startsWith('redis-server')) role = 'redis';
    else {
      const cli = cmdline.findIndex((arg) => arg.endsWith('/cli.js'));
      const sub = cli >= 0 ? cmdline[cli + 1] : undefined;
      if (sub === 'api' || sub === 'worker' || sub === 'start') role = sub;
    }
    if (role !== null) roles.set(role, (roles.get(role) ?? 0) + cpu);
  }
  return roles;
}

/** CPU ms per unit of work between two `cpuByRole` readings, as "role 1.2 ms, …" (total first). */
export function cpuPerUnit(before: ReadonlyMap<string, number>, after: ReadonlyMap<string, number>, units: number): string {
  const parts: string[] = [];
  let total = 0;
  for (const [role, ms] of after) {
    const spent = ms - (before.get(role) ?? 0);
    if (spent <= 0) continue;
    total += spent;
    parts.push(`${role} ${(spent / units).toFixed(1)}`);
  }
  return `${(total / units).toFixed(1)} ms (${parts.join(', ')})`;
}
