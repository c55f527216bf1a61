/**
 * bench:jobs — 1,000 lockfile jobs (a 50-package package-lock.json each) through the real API and
 * two worker processes on this machine: jobs/s end to end, submit→succeeded latency percentiles
 * as fast as possible and at 50 jobs/s offered, and, in the same run, the throughput of no-op
 * BullMQ jobs on the same Redis with the same processes and concurrency (the queue's ceiling).
 * Targets: >= 100 jobs/s end to end; p95 < 1 s at 50 jobs/s.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { Agent, request } from 'undici';
import type { JobSnapshot } from '../src/jobs/snapshot.js';
import { LogWatcher } from '../test/helpers/cli.js';
import { BENCH_REDIS_URL, benchService, clearRedisPrefix, benchLockfile, cpuByRole, cpuPerUnit, stopProcesses, supervise, ms, percentile, warmupJobs } from './helpers.js';

const JOBS = 1000;
const WORKERS = 2;
const WARMUP = Number(process.env['BENCH_WARMUP'] ?? warmupJobs(WORKERS));
const CONCURRENCY = Number(process.env['BENCH_WORKER_CONCURRENCY'] ?? 8);
const CLI = fileURLToPath(new URL('../dist/src/cli.js', import.meta.url));

async function main(): Promise<void> {
  const { token, registry, base, prefix, env } = await benchService('jobs', { WORKER_CONCURRENCY: String(CONCURRENCY), LOG_LEVEL: 'info' });
  const children: ChildProcess[] = [];
  const start = (args: string[]): ChildProcess => {
    const child = spawn(process.execPath, [CLI, ...args], { env, stdio: ['ignore', 'pipe', 'inherit'] });
    children.push(supervise(child, args[0] ?? 'child'));
    return child;
  };
  const api = start(['api']);
  await new LogWatcher(api).waitFor((l) => String(l['msg']).startsWith('Server listening'));
  for (let i = 0; i < WORKERS; i++) {
    const worker = start(['worker']);
    await new LogWatcher(worker).waitFor((l) => l['msg'] === 'worker started');
  }

  // Completion is observed on the job event channels: one pattern subscription for all jobs.
  const done = new Map<string, number>();
  const waiting = new Map<string, () => void>();
  const subscriber = new Redis(BENCH_REDIS_URL);
  await subscriber.psubscribe(`${prefix}:job-events:*`);
  subscriber.on('pmessage', (_pattern: string, _channel: string, message: string) => {
    const snapshot = JSON.parse(message) as JobSnapshot;
    if (snapshot.state !== 'succeeded' && snapshot.state !== 'failed') return;
    if (snapshot.state === 'failed') console.error(`job ${snapshot.id} failed: ${snapshot.error ?? ''}`);
    if (!done.has(snapshot.id)) done.set(snapshot.id, performance.now());
    waiting.get(snapshot.id)?.();
  });

  const dispatcher = new Agent({ connections: 64, pipelining: 1 });
  const body = JSON.stringify({ format: 'cyclonedx', files: [{ path: 'package-lock.json', content: benchLockfile(50) }] });
  const submit = async (): Promise<{ id: string; at: number; finished: Promise<number> }> => {
    const at = performance.now();
    const res = await request(`${base}/v1/experimental/lockfile-jobs`, {
      method: 'POST',
      dispatcher,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body,
    });
    const snapshot = (await res.body.json()) as JobSnapshot;
    if (res.statusCode !== 202) throw new Error(`submit answered ${res.statusCode}`);
    const finished = new Promise<number>((resolve) => {
      const end = done.get(snapshot.id);
      if (end !== undefined) resolve(end);
      else waiting.set(snapshot.id, () => resolve(done.get(snapshot.id) ?? performance.now()));
    });
    return { id: snapshot.id, at, finished };
  };
  const report = async (label: string, jobs: { at: number; finished: Promise<number> }[], began: number) => {
    const ends = await Promise.all(jobs.map((j) => j.finished));
    const latencies = jobs.map((j, i) => (ends[i] ?? 0) - j.at).sort((a, b) => a - b);
    const wall = Math.max(...ends) - began;
    console.log(
      `${label}: ${jobs.length} jobs in ${ms(wall)} = ${((jobs.length / wall) * 1000).toFixed(1)} jobs/s end to end; ` +
        `submit→succeeded p50 ${ms(percentile(latencies, 50))}, p95 ${ms(percentile(latencies, 95))}, p99 ${ms(percentile(latencies, 99))}`,
    );
    return (jobs.length / wall) * 1000;
  };

  // Warm-up, not measured: the first jobs fill the metadata cache, and 200 per analysis thread let
  // V8 optimise the analysis on every thread of both workers (see warmupJobs), so the figures
  // below are the sustained rate.
  for (let sent = 0; sent < WARMUP; sent += 32) await Promise.all(Array.from({ length: Math.min(32, WARMUP - sent) }, async () => (await submit()).finished));

  let began = performance.now();
  const cpuBefore = cpuByRole();
  const burst: { at: number; finished: Promise<number> }[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: 32 }, async () => {
      while (next < JOBS) {
        next++;
        burst.push(await submit());
      }
    }),
  );
  const endToEnd = await report(`as fast as possible (${WORKERS} workers × concurrency ${CONCURRENCY})`, burst, began);
  console.log(`  CPU per job (every process, this one included): ${cpuPerUnit(cpuBefore, cpuByRole(), JOBS)}`);

  began = performance.now();
  const paced: { at: number; finished: Promise<number> }[] = [];
  const submits: Promise<void>[] = [];
  for (let i = 0; i < JOBS; i++) {
    const due = began + i * 20;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    submits.push(submit().then((j) => void paced.push(j)));
  }
  await Promise.all(submits);
  await report('offered at 50 jobs/s', paced, began);

  // The queue's own ceiling: no-op jobs, same Redis, same number of processes and concurrency.
  const noopConnection = new Redis(BENCH_REDIS_URL, { maxRetriesPerRequest: null });
  const noopQueue = new Queue('bench-noop', { connection: noopConnection, prefix });
  const noopWorkers = Array.from({ length: WORKERS }, () =>
    spawn(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `import { Worker } from 'bullmq'; import { Redis } from 'ioredis';
         const w = new Worker('bench-noop', async () => undefined, { connection: new Redis(${JSON.stringify(BENCH_REDIS_URL)}, { maxRetriesPerRequest: null }), prefix: ${JSON.stringify(prefix)}, concurrency: ${CONCURRENCY} });
         await w.waitUntilReady(); console.log('ready'); process.on('SIGTERM', async () => { await w.close(); process.exit(0); });`,
      ],
      { stdio: ['ignore', 'pipe', 'inherit'], cwd: fileURLToPath(new URL('..', import.meta.url)) },
    ),
  );
  await Promise.all(noopWorkers.map(async (w) => once(w.stdout, 'data')));
  const NOOPS = 5000;
  began = performance.now();
  await noopQueue.addBulk(Array.from({ length: NOOPS }, (_, i) => ({ name: 'noop', data: { i }, opts: { removeOnComplete: true } })));
  const pending = async (): Promise<number> => {
    const counts = await noopQueue.getJobCounts('waiting', 'active');
    return (counts['waiting'] ?? 0) + (counts['active'] ?? 0);
  };
  while ((await pending()) > 0) {
    await new Promise((r) => setTimeout(r, 20));
  }
  const ceiling = (NOOPS / (performance.now() - began)) * 1000;
  console.log(`no-op BullMQ jobs, same Redis and processes: ${ceiling.toFixed(1)} jobs/s; pkgscope end to end is ${((endToEnd / ceiling) * 100).toFixed(1)}% of it`);

  for (const w of noopWorkers) w.kill('SIGTERM');
  await noopQueue.obliterate({ force: true });
  await noopQueue.close();
  await noopConnection.quit();
  await subscriber.quit();
  await dispatcher.close();
  await stopProcesses(children);
  await registry.close();
  await clearRedisPrefix(BENCH_REDIS_URL, prefix);
}

await main();
