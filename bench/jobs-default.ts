/**
 * bench:jobs, part 1 — the service as `npm start` runs it, with its default settings (one API and
 * one worker process under the supervisor), then with a second worker process beside it:
 * 20 clients each submit a lockfile job (an 83-entry package-lock.json), poll its status until it
 * succeeds (no event stream), and submit the next. Prints jobs/s end to end, submit→succeeded
 * latency percentiles, and Postgres transactions and Redis commands per job (the service's
 * round trips, read from pg_stat_database and Redis' INFO commandstats), and the CPU each process
 * spent per job. The defaults are npm start's, log level included (its lines are discarded), but
 * for the rate limit, raised out of reach. Each measured run (1,000 jobs) follows unmeasured jobs of warm-up,
 * 200 per analysis thread of its worker processes (see warmupJobs).
 * BENCH_JOBS, BENCH_WARMUP, BENCH_CLIENTS, BENCH_POLL_MS and BENCH_LOG_LEVEL change the run.
 * The same run then asks for vulnerabilities (`"vulnerabilities": true`), against the advisories
 * loaded before the service starts (the real Go and PyPI dumps of ../shared/advisories and the OSV
 * fixtures of the other ecosystems), so both rates print side by side.
 * Then one large job (the lockfile of bench:sbom) submitted twice, cold and warm.
 * Targets: >= 100 jobs/s with the defaults, >= 200 jobs/s with two worker processes; the large
 * job within 1 s warm; the default rate (vulnerabilities not asked for) within 10 % of its rate
 * before advisories existed (issue #33).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { Redis } from 'ioredis';
import { Agent, request } from 'undici';
import { importAdvisoryPaths } from '../src/advisories/import.js';
import { AdvisoryStore } from '../src/advisories/store.js';
import { connectDatabase } from '../src/db/client.js';
import type { JobSnapshot } from '../src/jobs/snapshot.js';
import { LogWatcher } from '../test/helpers/cli.js';
import { BENCH_REDIS_URL, benchService, cpuByRole, cpuPerUnit, clearRedisPrefix, benchLockfile, ms, percentile, stopProcesses, supervise, waitForHttp, warmupJobs } from './helpers.js';

const JOBS = Number(process.env['BENCH_JOBS'] ?? 1000);
/** Unmeasured jobs before each measured run; by default 200 per analysis thread of the run's worker processes. */
const WARMUP = process.env['BENCH_WARMUP'] === undefined ? null : Number(process.env['BENCH_WARMUP']);
const CLIENTS = Number(process.env['BENCH_CLIENTS'] ?? 20);
const POLL_MS = Number(process.env['BENCH_POLL_MS'] ?? 20);
const CLI = fileURLToPath(new URL('../dist/src/cli.js', import.meta.url));
const JOBS_URL = '/v1/experimental/lockfile-jobs';

const { databaseUrl, token, registry, base, prefix, env } = await benchService('jobs-default', {
  // npm start's own level (a request line each): the service's stdout is discarded, not shown.
  LOG_LEVEL: process.env['BENCH_LOG_LEVEL'] ?? 'info',
});
// The advisory mirror as a service that has synced holds it (imported here, before the service starts).
const SHARED_ADVISORIES = fileURLToPath(new URL('../../shared/advisories', import.meta.url));
{
  const database = connectDatabase(databaseUrl, { max: 2, applicationName: 'pkgscope-bench-jobs' });
  try {
    const imported = await importAdvisoryPaths(new AdvisoryStore(database.db), [
      join(SHARED_ADVISORIES, 'Go', 'all.zip'),
      join(SHARED_ADVISORIES, 'PyPI', 'all.zip'),
      fileURLToPath(new URL('../test/fixtures/advisories', import.meta.url)),
    ]);
    console.log(`advisories loaded: ${imported.sources.map((s) => `${s.ecosystem} ${s.advisories}`).join(', ')}`);
  } finally {
    await database.close();
  }
}
// BENCH_CPU_PROF=<folder>: the API and the worker as `start` runs them, but spawned here under
// --cpu-prof (which NODE_OPTIONS refuses), their profiles written to the folder when they stop.
const profile = process.env['BENCH_CPU_PROF'];
const children: ChildProcess[] = [];
if (profile === undefined) {
  children.push(supervise(spawn(process.execPath, [CLI, 'start'], { env, stdio: ['ignore', 'ignore', 'inherit'] }), 'pkgscope start'));
} else {
  for (const role of ['api', 'worker']) {
    const args = ['--cpu-prof', `--cpu-prof-dir=${profile}/${role}`, CLI, role];
    children.push(supervise(spawn(process.execPath, args, { env, stdio: ['ignore', 'ignore', 'inherit'] }), role));
  }
}
await waitForHttp(`${base}/readyz`);

const dispatcher = new Agent({ connections: CLIENTS * 2 });
const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
const files = [{ path: 'package-lock.json', content: benchLockfile(83) }];
const body = JSON.stringify({ format: 'cyclonedx', files });
const withVulnerabilities = JSON.stringify({ format: 'cyclonedx', files, vulnerabilities: true });

/** Submits one job and polls it to its end; returns submit→succeeded in ms. */
async function oneJob(body: string): Promise<number> {
  const at = performance.now();
  const res = await request(`${base}${JOBS_URL}`, { method: 'POST', dispatcher, headers, body });
  const submitted = (await res.body.json()) as JobSnapshot;
  if (res.statusCode !== 202) throw new Error(`submit answered ${res.statusCode}`);
  for (;;) {
    const poll = await request(`${base}${JOBS_URL}/${submitted.id}`, { dispatcher, headers: { authorization: headers.authorization } });
    const snapshot = (await poll.body.json()) as JobSnapshot;
    if (snapshot.state === 'succeeded') return performance.now() - at;
    if (snapshot.state === 'failed') throw new Error(`job ${snapshot.id} failed: ${snapshot.error ?? ''}`);
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
}

const admin = new pg.Client({ connectionString: databaseUrl });
await admin.connect();
const redis = new Redis(BENCH_REDIS_URL);
const transactions = async (): Promise<number> => {
  await admin.query('SELECT pg_stat_clear_snapshot()');
  const { rows } = await admin.query<{ n: string }>('SELECT xact_commit + xact_rollback AS n FROM pg_stat_database WHERE datname = current_database()');
  return Number(rows[0]?.n ?? 0);
};
const redisCommands = async (): Promise<number> => {
  const info = await redis.info('commandstats');
  return [...info.matchAll(/calls=(\d+)/g)].reduce((n, m) => n + Number(m[1]), 0);
};

/** `count` jobs of `body` by the clients, each submitting its next when its last succeeded; their latencies. */
async function jobs(count: number, body: string): Promise<number[]> {
  const latencies: number[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: CLIENTS }, async () => {
      while (next < count) {
        next++;
        latencies.push(await oneJob(body));
      }
    }),
  );
  return latencies;
}

async function run(label: string, workers: number, submitted = body): Promise<number> {
  // Warm-up, not measured: the metadata cache filled, each process's pipeline loaded, and the
  // analysis optimised by V8 on every thread (a fresh thread runs a job several times slower), so
  // the figures are the sustained rate.
  await jobs(WARMUP ?? warmupJobs(workers), submitted);
  const [pg0, redis0] = [await transactions(), await redisCommands()];
  const cpu0 = cpuByRole();
  const began = performance.now();
  const latencies = await jobs(JOBS, submitted);
  const wall = performance.now() - began;
  const cpu1 = cpuByRole();
  // The stats collector publishes a transaction's count when its session reports (at most every second).
  await new Promise((r) => setTimeout(r, 1_100));
  const [pg1, redis1] = [await transactions(), await redisCommands()];
  latencies.sort((a, b) => a - b);
  const rate = (JOBS / wall) * 1000;
  console.log(
    `${label}: ${JOBS} jobs by ${CLIENTS} polling clients (every ${POLL_MS} ms) in ${ms(wall)} = ${rate.toFixed(1)} jobs/s; ` +
      `submit→succeeded p50 ${ms(percentile(latencies, 50))}, p95 ${ms(percentile(latencies, 95))}; ` +
      `per job: ${((pg1 - pg0) / JOBS).toFixed(1)} Postgres transactions, ${((redis1 - redis0) / JOBS).toFixed(1)} Redis commands (polls included), ` +
      `CPU ${cpuPerUnit(cpu0, cpu1, JOBS)}`,
  );
  return rate;
}

const plain = await run('npm start defaults (1 API, 1 worker)', 1);
// BENCH_DEFAULT_ONLY=1: the default run alone (alternating builds A/B/A/B takes many of them).
if (process.env['BENCH_DEFAULT_ONLY'] !== '1') await theRest();

async function theRest(): Promise<void> {
  const matched = await run('npm start defaults (1 API, 1 worker), "vulnerabilities": true', 1, withVulnerabilities);
  console.log(`vulnerabilities asked for: ${((matched / plain - 1) * 100).toFixed(1)} % against the default rate`);

  // One large job: the ~2,700-entry lockfile of bench:sbom, submit→succeeded, the second run warm.
  const large = JSON.stringify({
    format: 'cyclonedx',
    files: ['package.json', 'package-lock.json'].map((name) => ({ path: name, content: readFileSync(new URL(`fixtures/large/${name}`, import.meta.url), 'utf8') })),
  });
  for (const label of ['cold cache', 'warm cache']) {
    const at = performance.now();
    const res = await request(`${base}${JOBS_URL}`, { method: 'POST', dispatcher, headers, body: large });
    const { id } = (await res.body.json()) as JobSnapshot;
    for (;;) {
      const poll = await request(`${base}${JOBS_URL}/${id}`, { dispatcher, headers: { authorization: headers.authorization } });
      const snapshot = (await poll.body.json()) as JobSnapshot;
      if (snapshot.state === 'succeeded') break;
      if (snapshot.state === 'failed') throw new Error(`large job failed: ${snapshot.error ?? ''}`);
      await new Promise((r) => setTimeout(r, POLL_MS));
    }
    console.log(`large job (2,720-entry package-lock.json), ${label}: submit→succeeded ${ms(performance.now() - at)} (polled every ${POLL_MS} ms)`);
  }
  const extra = supervise(spawn(process.execPath, [CLI, 'worker'], { env: { ...env, LOG_LEVEL: 'info' }, stdio: ['ignore', 'pipe', 'inherit'] }), 'second worker');
  children.push(extra);
  await new LogWatcher(extra).waitFor((l) => l['msg'] === 'worker started');
  await run('npm start defaults and a second worker process', 2);
}

await dispatcher.close();
await admin.end();
await stopProcesses(children);
await registry.close();
await clearRedisPrefix(BENCH_REDIS_URL, prefix);
await redis.quit();
