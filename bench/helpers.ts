import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { readdirSync, readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
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

/** The machine's load averages (1, 5, 15 min), printed beside every figure: the machine is shared. */
export function loadAverage(): string {
  return `load ${loadavg()
    .map((n) => n.toFixed(2))
    .join(' ')}`;
}

/** One autocannon run's figures, with the load average at its end. */
export interface LoadRun {
  readonly rps: number;
  readonly p50: number;
  readonly p99: number;
  /** Non-2xx answers, errors and timeouts: a run with any is not a figure. */
  readonly failed: number;
  readonly load: string;
}

/** Runs autocannon (100 connections, 10 s unless overridden) and returns its figures. */
export async function loadRun(options: autocannon.Options): Promise<LoadRun> {
  const result = await autocannon({ connections: 100, duration: 10, ...options });
  return {
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    failed: result.non2xx + result.errors + result.timeouts,
    load: loadAverage(),
  };
}

const describe = (run: LoadRun): string =>
  `${run.rps.toFixed(0).padStart(6)} req/s  p50 ${run.p50} ms  p99 ${run.p99} ms  (${run.load})` + (run.failed > 0 ? `  ${run.failed} non-2xx/errors` : '');

/** Loads a URL with autocannon (100 connections, 10 s unless overridden), prints and returns req/s. */
export async function load(title: string, options: autocannon.Options): Promise<number> {
  const run = await loadRun(options);
  console.log(`${title.padEnd(40)} ${describe(run)}`);
  return run.rps;
}

/** Resolves once `url` answers 2xx (a freshly spawned server); a loaded machine can take tens of seconds to start one. */
export async function waitForHttp(url: string, timeoutMs = 60_000): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (performance.now() < deadline) {
    try {
      if ((await fetch(url)).ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${url} did not answer`);
}

/** A process whose CPU use a benchmark watches. */
export interface Watched {
  readonly name: string;
  readonly pid: number;
}

/** The CPU time (user + system, ms) a process has used so far, from /proc/<pid>/stat; null once it is gone. */
export function processCpuMs(pid: number): number | null {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return null;
  }
  // Fields after the command (which may hold spaces): state is the first, utime the 12th, stime the 13th.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10; // USER_HZ is 100 on Linux
}

export interface IdleOptions {
  /** Length of one sampling window (1 s). */
  readonly windowMs?: number;
  /** Largest share of one core a process may use over a window and count as idle (5 %). */
  readonly maxShare?: number;
  /** Give up (throw) after this long (180 s): a service that never settles makes no ceiling. */
  readonly deadlineMs?: number;
}

/**
 * Resolves once every watched process used less than `maxShare` of a core over one window
 * (preparation, text indexing, Postgres writes behind them all over); returns what each used in
 * that window. Throws, naming the busy processes, when that has not happened by the deadline,
 * or when a watched process has ended.
 */
export async function waitUntilIdle(watched: readonly Watched[], options: IdleOptions = {}): Promise<string> {
  const { windowMs = 1_000, maxShare = 0.05, deadlineMs = 180_000 } = options;
  const deadline = performance.now() + deadlineMs;
  const read = (): number[] =>
    watched.map(({ name, pid }) => {
      const cpu = processCpuMs(pid);
      if (cpu === null) throw new Error(`${name} (pid ${pid}) is not running: it cannot be waited for`);
      return cpu;
    });
  for (;;) {
    const before = read();
    const started = performance.now();
    await new Promise((resolve) => setTimeout(resolve, windowMs));
    const after = read();
    const elapsed = performance.now() - started;
    const shares = watched.map((w, i) => ({ name: w.name, share: ((after[i] ?? 0) - (before[i] ?? 0)) / elapsed }));
    const last = shares.map((s) => `${s.name} ${(s.share * 100).toFixed(0)} %`).join(', ');
    if (shares.every((s) => s.share < maxShare)) return last;
    if (performance.now() > deadline) {
      throw new Error(`not idle after ${(deadlineMs / 1000).toFixed(0)} s (CPU over the last ${windowMs} ms: ${last}; at most ${maxShare * 100} % of a core each): no ceiling can be taken`);
    }
  }
}

/** A Fastify hello-world in its own process: the ceiling every HTTP figure is given against. */
export interface HelloWorld extends Watched {
  readonly url: string;
}

/** Starts the ceiling's hello-world on `port`; the child is pushed to `children` (the caller stops it). */
export async function startHelloWorld(children: ChildProcess[], port: number): Promise<HelloWorld> {
  const hello = spawn(
    process.execPath,
    ['-e', `require('fastify')().get('/', async () => ({ hello: 'world' })).listen({ port: ${port}, host: '127.0.0.1' }).then((a) => console.log(a))`],
    { stdio: ['ignore', 'pipe', 'inherit'], cwd: fileURLToPath(new URL('..', import.meta.url)) },
  );
  children.push(supervise(hello, 'hello-world'));
  const [url] = (await once(hello.stdout as NodeJS.ReadableStream, 'data')) as [Buffer];
  (hello.stdout as NodeJS.ReadableStream).resume();
  return { name: 'hello-world', pid: hello.pid ?? 0, url: url.toString().trim() };
}

export interface Comparison {
  readonly title: string;
  readonly rounds: readonly { readonly ceiling: LoadRun; readonly measured: LoadRun; readonly ratio: number; readonly cpuRatio: number }[];
  readonly medianRatio: number;
  /** The hello-world's CPU per request over the service's (all its processes'), median over the rounds. */
  readonly medianCpuRatio: number;
  /** The measured side's worst p99 over the rounds. */
  readonly worstP99: number;
}

export interface AlternateOptions {
  readonly title: string;
  readonly ceiling: HelloWorld;
  /** What is measured (its url, method, headers, body); connections and duration are the ceiling's. */
  readonly measured: autocannon.Options;
  /** The service's processes: they, and the hello-world, must be idle before each run. */
  readonly idle: readonly Watched[];
  /** Rounds of ceiling then measure (at least 2; BENCH_ROUNDS, else 3). */
  readonly rounds?: number;
  readonly connections?: number;
  readonly duration?: number;
}

/** BENCH_ROUNDS, else `fallback`; never fewer than 2. */
export function benchRounds(fallback = 3): number {
  const rounds = Number(process.env['BENCH_ROUNDS'] ?? fallback);
  return Number.isInteger(rounds) && rounds >= 2 ? rounds : fallback;
}

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? (sorted[mid] ?? Number.NaN) : ((sorted[mid - 1] ?? Number.NaN) + (sorted[mid] ?? Number.NaN)) / 2;
}

/**
 * A ratio that cannot flatter: rounds of the hello-world ceiling then the measured request,
 * same connections and duration, each run started only once the service and the hello-world are
 * idle; both sides are warmed first. Prints each round (ceiling, measured, ratio, p99, load
 * average) and the median ratio. A run with any non-2xx answer or error throws.
 */
export async function alternate(options: AlternateOptions): Promise<Comparison> {
  const { title, ceiling, measured, connections = 100, duration = 10 } = options;
  const rounds = Math.max(2, options.rounds ?? benchRounds());
  const watched = [...options.idle, ceiling];
  const checked = async (what: string, run: Promise<LoadRun>): Promise<LoadRun> => {
    const figures = await run;
    if (figures.failed > 0) throw new Error(`${title}: ${what} had ${figures.failed} non-2xx answers or errors; the figure would not be the route's`);
    return figures;
  };
  console.log(`${title}: ${rounds} rounds of hello-world then measured, ${connections} connections, ${duration} s each`);
  await checked('warm-up', loadRun({ url: ceiling.url, connections: 10, duration: 2 }));
  await checked('warm-up', loadRun({ ...measured, connections: 10, duration: 2 }));
  const results: Comparison['rounds'][number][] = [];
  // CPU per request of the serving processes: on a shared machine it moves less than req/s does.
  const costed = async (processes: readonly Watched[], run: () => Promise<LoadRun>): Promise<{ figures: LoadRun; msPerRequest: number; parts: string }> => {
    const before = processes.map((p) => processCpuMs(p.pid) ?? 0);
    const figures = await run();
    const spent = processes.map((p, i) => ((processCpuMs(p.pid) ?? 0) - (before[i] ?? 0)) / (figures.rps * duration));
    const parts = processes.length > 1 ? ` (${processes.map((p, i) => `${p.name} ${(spent[i] ?? 0).toFixed(3)}`).join(', ')})` : '';
    return { figures, msPerRequest: spent.reduce((a, b) => a + b, 0), parts };
  };
  for (let round = 1; round <= rounds; round++) {
    const idleCeiling = await waitUntilIdle(watched);
    const hello = await costed([ceiling], () => checked('the ceiling', loadRun({ url: ceiling.url, connections, duration })));
    const idleMeasured = await waitUntilIdle(watched);
    const run = await costed(options.idle, () => checked('the measured run', loadRun({ ...measured, connections, duration })));
    const ratio = run.figures.rps / hello.figures.rps;
    results.push({ ceiling: hello.figures, measured: run.figures, ratio, cpuRatio: hello.msPerRequest / run.msPerRequest });
    console.log(`  round ${round}  ceiling  ${describe(hello.figures)}  CPU ${hello.msPerRequest.toFixed(3)} ms/req  [idle before: ${idleCeiling}]`);
    console.log(
      `           measured ${describe(run.figures)}  CPU ${run.msPerRequest.toFixed(3)} ms/req${run.parts}  [idle before: ${idleMeasured}]  ` +
        `ratio ${(ratio * 100).toFixed(1)} % (by CPU per request ${((hello.msPerRequest / run.msPerRequest) * 100).toFixed(1)} %)`,
    );
  }
  const comparison = {
    title,
    rounds: results,
    medianRatio: median(results.map((r) => r.ratio)),
    medianCpuRatio: median(results.map((r) => r.cpuRatio)),
    worstP99: Math.max(...results.map((r) => r.measured.p99)),
  };
  console.log(
    `  ${title}: median ${(comparison.medianRatio * 100).toFixed(1)} % of the hello-world (by CPU per request ${(comparison.medianCpuRatio * 100).toFixed(1)} %), worst p99 ${comparison.worstP99} ms`,
  );
  return comparison;
}

/**
 * The benchmarks load one account far past the default rate limit; the limiter stays on (its Redis
 * round trip is part of every figure) with a ceiling no run reaches.
 */
export const BENCH_RATE_LIMIT = { RATE_LIMIT_PER_ACCOUNT: '1000000' } as const;

const stopping = new WeakSet<ChildProcess>();

/** Ends the benchmark with a message when a service process dies on its own (bad configuration, crash). */
export function supervise(child: ChildProcess, name: string): ChildProcess {
  supervised.add(child);
  child.once('exit', (code, signal) => {
    supervised.delete(child);
    if (stopping.has(child)) return;
    console.error(`${name} exited unexpectedly (code ${String(code)}, signal ${String(signal)}); its output is above`);
    process.exit(1);
  });
  return child;
}

/** Children still running; a benchmark that fails (a server that never answered, a thrown error) must not leave them behind. */
const supervised = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of supervised) child.kill('SIGTERM');
});

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
