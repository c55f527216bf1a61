/**
 * bench:faults — the fault-injection figures of issue 10, measured on this machine.
 *
 * A. Worker kills: one API and two workers (built CLI), jobs submitted continuously, up to 50
 *    event streams open; every 2 s one worker is killed with SIGKILL and a new one started.
 * B. Postgres restart under load, with nothing restarting crashed processes: the same processes
 *    on a private Postgres cluster; `pg_ctl restart -m fast` in the middle of the run.
 *
 * Each prints: jobs accepted (and refused), succeeded, failed by code, stuck (unfinished after
 * the drain), the highest attempt, event streams left open on finished jobs, processes alive.
 * FAULTS_KILL_SECONDS (120) and FAULTS_RESTART_SECONDS (30) set the run lengths.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { createToken, ensureAccount } from '../src/accounts/tokens.js';
import { connectDatabase } from '../src/db/client.js';
import { runMigrations } from '../src/db/migrate.js';
import type { JobSnapshot } from '../src/jobs/snapshot.js';
import { freePort, LogWatcher } from '../test/helpers/cli.js';
import { startPrivatePostgres } from '../test/helpers/pg-cluster.js';
import { anyPackage, startFixtureRegistry, type FixtureRegistry } from '../test/helpers/registry.js';
import { SseClient } from '../test/helpers/sse.js';
import { BENCH_RATE_LIMIT, benchDatabase } from './helpers.js';

const CLI = fileURLToPath(new URL('../dist/src/cli.js', import.meta.url));
const REDIS_URL = process.env['BENCH_REDIS_URL'] ?? 'redis://127.0.0.1:6379';
const JOBS = '/v1/experimental/lockfile-jobs';
const HEARTBEAT_MS = 2_000;
const MAX_STREAMS = 50;
const SUBMIT_EVERY_MS = 100;
const DRAIN_LIMIT_MS = 120_000;
/** Timings shortened so a run drains in seconds, not minutes (lock 5 s instead of 30 s). */
const FAULT_ENV = {
  JOB_LOCK_MS: '5000',
  RECONCILE_INTERVAL_MS: '5000',
  RECONCILE_GRACE_MS: '10000',
  SSE_HEARTBEAT_MS: String(HEARTBEAT_MS),
  WORKER_CONCURRENCY: '4',
  LOG_LEVEL: 'warn',
  ...BENCH_RATE_LIMIT,
};

/** A package-lock.json v3 with 20 registry packages. */
function lockfile(): string {
  const packages: Record<string, unknown> = { '': { name: 'faults-app', version: '1.0.0', dependencies: {} as Record<string, string> } };
  const deps = (packages[''] as { dependencies: Record<string, string> }).dependencies;
  for (let i = 0; i < 20; i++) {
    packages[`node_modules/faults-pkg-${i}`] = { version: `1.${i}.0`, license: 'MIT', integrity: `sha512-${Buffer.alloc(64, i).toString('base64')}` };
    deps[`faults-pkg-${i}`] = `^1.${i}.0`;
  }
  return JSON.stringify({ name: 'faults-app', version: '1.0.0', lockfileVersion: 3, requires: true, packages });
}

interface Processes {
  readonly api: ChildProcess;
  readonly workers: ChildProcess[];
  readonly base: string;
  startWorker(): ChildProcess;
  stop(): void;
}

async function startProcesses(databaseUrl: string, registry: FixtureRegistry, prefix: string): Promise<Processes> {
  const port = await freePort();
  const env = { ...process.env, ...FAULT_ENV, DATABASE_URL: databaseUrl, REDIS_URL, REDIS_PREFIX: prefix, npm_config_registry: `${registry.url}/` };
  const all: ChildProcess[] = [];
  const start = (args: string[], extra: Record<string, string> = {}): ChildProcess => {
    const child = spawn(process.execPath, [CLI, ...args], { env: { ...env, ...extra }, stdio: ['ignore', 'pipe', 'inherit'] });
    child.stdout.resume();
    all.push(child);
    return child;
  };
  const api = start(['api'], { PORT: String(port), LOG_LEVEL: 'info' });
  await new LogWatcher(api).waitFor((l) => String(l['msg']).startsWith('Server listening'));
  const startWorker = (): ChildProcess => start(['worker']);
  const workers = [startWorker(), startWorker()];
  return {
    api,
    workers,
    base: `http://127.0.0.1:${port}`,
    startWorker,
    stop: () => {
      for (const child of all) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    },
  };
}

const alive = (child: ChildProcess): boolean => child.exitCode === null && child.signalCode === null;

interface RunResult {
  readonly accepted: number;
  /** Submissions not accepted, by status (or `error` when no answer came). */
  readonly refused: Readonly<Record<string, number>>;
  readonly streamsOpened: number;
}

/** Submits jobs every SUBMIT_EVERY_MS for `ms`, keeping up to MAX_STREAMS event streams open. */
async function load(base: string, token: string, ms: number, ids: string[], streams: Map<string, SseClient>): Promise<RunResult> {
  const body = JSON.stringify({ format: 'text', files: [{ path: 'package-lock.json', content: lockfile() }] });
  const refused: Record<string, number> = {};
  const refuse = (why: string): void => {
    refused[why] = (refused[why] ?? 0) + 1;
  };
  let opened = 0;
  const until = Date.now() + ms;
  while (Date.now() < until) {
    const tick = Date.now();
    try {
      const res = await fetch(`${base}${JOBS}`, { method: 'POST', body, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, signal: AbortSignal.timeout(10_000) });
      if (res.status === 202) {
        const { id } = (await res.json()) as JobSnapshot;
        ids.push(id);
        const open = [...streams.values()].filter((s) => !s.isDone()).length;
        if (open < MAX_STREAMS) {
          const stream = new SseClient(`${base}${JOBS}/${id}/events`, token);
          stream.ended.catch(() => undefined);
          streams.set(id, stream);
          opened++;
        }
      } else {
        refuse(`${res.status}${res.headers.has('retry-after') ? ' with Retry-After' : ''}`);
        await res.body?.cancel();
      }
    } catch {
      refuse('error');
    }
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, SUBMIT_EVERY_MS - (Date.now() - tick))));
  }
  return { accepted: ids.length, refused, streamsOpened: opened };
}

/** Waits until every job is terminal in Postgres (or the drain limit passes); then reports. */
async function report(title: string, databaseUrl: string, ids: readonly string[], run: RunResult, streams: Map<string, SseClient>, processes: Record<string, boolean>): Promise<void> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  const started = Date.now();
  type Row = { state: string; error: string | null; n: string; max_attempt: number };
  let rows: Row[] = [];
  for (;;) {
    rows = (await client.query<Row>('SELECT state, error, count(*) AS n, max(attempt) AS max_attempt FROM lockfile_jobs WHERE id = ANY($1) GROUP BY state, error', [ids])).rows;
    const unfinished = rows.filter((r) => r.state === 'queued' || r.state === 'running').reduce((n, r) => n + Number(r.n), 0);
    if (unfinished === 0 || Date.now() - started > DRAIN_LIMIT_MS) break;
    await new Promise((resolve) => setTimeout(resolve, 1_000));
  }
  const drainMs = Date.now() - started;
  // Streams get two heartbeat intervals (the stated bound) and a second to reflect the end.
  await new Promise((resolve) => setTimeout(resolve, 2 * HEARTBEAT_MS + 1_000));
  const finished = new Set(
    (await client.query<{ id: string }>("SELECT id FROM lockfile_jobs WHERE id = ANY($1) AND state IN ('succeeded', 'failed')", [ids])).rows.map((r) => r.id),
  );
  await client.end();
  const stranded = [...streams.entries()].filter(([id, s]) => finished.has(id) && !s.isDone()).length;
  for (const stream of streams.values()) stream.close();
  const count = (state: string): number => rows.filter((r) => r.state === state).reduce((n, r) => n + Number(r.n), 0);
  const failedByCode = Object.fromEntries(rows.filter((r) => r.state === 'failed').map((r) => [r.error ?? 'none', Number(r.n)]));
  console.log(`\n${title}`);
  console.log(`  jobs accepted ${run.accepted} (refused ${JSON.stringify(run.refused)}), succeeded ${count('succeeded')}, failed ${count('failed')} ${JSON.stringify(failedByCode)}`);
  console.log(`  stuck (unfinished when the drain ended, ${Math.round(drainMs / 1000)} s after the load) ${count('queued') + count('running')}; highest attempt ${Math.max(0, ...rows.map((r) => r.max_attempt))}`);
  console.log(`  event streams opened ${run.streamsOpened}, left open on finished jobs ${stranded}`);
  console.log(`  processes alive at the end: ${Object.entries(processes).map(([k, v]) => `${k} ${v ? 'yes' : 'NO'}`).join(', ')}`);
}

async function token(databaseUrl: string): Promise<string> {
  const database = connectDatabase(databaseUrl, { max: 1 });
  try {
    return (await createToken(database.db, await ensureAccount(database.db, 'faults'))).token;
  } finally {
    await database.close();
  }
}

async function workerKills(registry: FixtureRegistry, seconds: number): Promise<void> {
  const databaseUrl = await benchDatabase('pkgscope_bench_faults');
  const processes = await startProcesses(databaseUrl, registry, `pkgscope-faults-${process.pid}-a`);
  const ids: string[] = [];
  const streams = new Map<string, SseClient>();
  let kills = 0;
  const killer = setInterval(() => {
    const index = kills++ % processes.workers.length;
    processes.workers[index]?.kill('SIGKILL');
    processes.workers[index] = processes.startWorker();
  }, 2_000);
  try {
    const run = await load(processes.base, await token(databaseUrl), seconds * 1000, ids, streams);
    clearInterval(killer);
    await report(`A. ${seconds} s, a worker SIGKILLed every 2 s (${kills} kills)`, databaseUrl, ids, run, streams, {
      api: alive(processes.api),
      workers: processes.workers.every(alive),
    });
  } finally {
    clearInterval(killer);
    processes.stop();
  }
}

async function postgresRestart(registry: FixtureRegistry, seconds: number): Promise<void> {
  const cluster = await startPrivatePostgres();
  if (cluster === null) {
    console.log('\nB. skipped: initdb is not installed (set PG_BIN)');
    return;
  }
  try {
    const databaseUrl = cluster.url('pkgscope');
    await runMigrations(databaseUrl);
    const processes = await startProcesses(databaseUrl, registry, `pkgscope-faults-${process.pid}-b`);
    try {
      const ids: string[] = [];
      const streams = new Map<string, SseClient>();
      const restart = setTimeout(() => void cluster.restart().then(() => console.log('  (pg_ctl restart -m fast done)')), (seconds * 1000) / 3);
      const run = await load(processes.base, await token(databaseUrl), seconds * 1000, ids, streams);
      clearTimeout(restart);
      await report(`B. ${seconds} s with a Postgres restart (pg_ctl restart -m fast) a third of the way in, no supervisor`, databaseUrl, ids, run, streams, {
        api: alive(processes.api),
        'worker 1': alive(processes.workers[0]!),
        'worker 2': alive(processes.workers[1]!),
      });
    } finally {
      processes.stop();
    }
  } finally {
    await cluster.destroy();
  }
}

async function main(): Promise<void> {
  const registry = await startFixtureRegistry({ fallback: anyPackage });
  try {
    await workerKills(registry, Number(process.env['FAULTS_KILL_SECONDS'] ?? 120));
    await postgresRestart(registry, Number(process.env['FAULTS_RESTART_SECONDS'] ?? 30));
  } finally {
    await registry.close();
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
