/**
 * bench:jobs, part 3 — event streams at scale on one API process: 500 unfinished jobs (submitted
 * with no worker running: to the API a queued job's stream is a running one's, and analysis
 * threads would hold only a few jobs at once), 10 streams each (5,000 in all), heartbeats every
 * 2 s. Prints connection set-up (request to first snapshot) percentiles, the largest gap between
 * heartbeats any stream saw, the API's peak RSS, then starts a worker and counts the streams
 * that received their terminal snapshot.
 * Targets: set-up p99 < 50 ms, heartbeats on time, every stream its terminal snapshot, RSS < 1 GB.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import http from 'node:http';
import { fileURLToPath } from 'node:url';
import type { JobSnapshot } from '../src/jobs/snapshot.js';
import { LogWatcher } from '../test/helpers/cli.js';
import { BENCH_REDIS_URL, benchService, clearRedisPrefix, benchLockfile, ms, peakRssMb, percentile, stopProcesses, supervise, waitForHttp } from './helpers.js';

const JOBS = Number(process.env['BENCH_SSE_JOBS'] ?? 500);
const PER_JOB = 10;
const HEARTBEAT_MS = 2_000;
const CLI = fileURLToPath(new URL('../dist/src/cli.js', import.meta.url));
const JOBS_URL = '/v1/experimental/lockfile-jobs';

const { token, registry, base, prefix, env } = await benchService('sse', {
  LOG_LEVEL: 'warn',
  SSE_HEARTBEAT_MS: String(HEARTBEAT_MS),
  PROGRESS_INTERVAL_MS: '0',
});
const children: ChildProcess[] = [];
const api = supervise(spawn(process.execPath, [CLI, 'api'], { env, stdio: ['ignore', 'inherit', 'inherit'] }), 'api');
children.push(api);
await waitForHttp(`${base}/readyz`);
const startWorker = async (extra: Record<string, string>): Promise<ChildProcess> => {
  const worker = supervise(spawn(process.execPath, [CLI, 'worker'], { env: { ...env, LOG_LEVEL: 'info', ...extra }, stdio: ['ignore', 'pipe', 'inherit'] }), 'worker');
  children.push(worker);
  await new LogWatcher(worker).waitFor((l) => l['msg'] === 'worker started');
  return worker;
};

const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
const body = JSON.stringify({ format: 'cyclonedx', files: [{ path: 'package-lock.json', content: benchLockfile(10) }] });
const post = (): Promise<JobSnapshot> =>
  new Promise((resolve, reject) => {
    const req = http.request(`${base}${JOBS_URL}`, { method: 'POST', agent, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' } }, (res) => {
      let text = '';
      res.setEncoding('utf8').on('data', (c: string) => (text += c)).on('end', () => resolve(JSON.parse(text) as JobSnapshot));
    });
    req.on('error', reject).end(body);
  });
const ids: string[] = [];
for (let i = 0; i < JOBS; i += 50) ids.push(...(await Promise.all(Array.from({ length: Math.min(50, JOBS - i) }, post))).map((s) => s.id));

interface Stream {
  readonly opened: number;
  firstSnapshot: number | null;
  heartbeats: number[];
  phases: string[];
  terminal: boolean;
  done: Promise<void>;
}
/** One SSE stream on its own connection; resolves `done` when the server ends it. */
function open(id: string): Stream {
  const stream: Stream = { opened: performance.now(), firstSnapshot: null, heartbeats: [], phases: [], terminal: false, done: Promise.resolve() };
  stream.done = new Promise((resolve, reject) => {
    const req = http.get(`${base}${JOBS_URL}/${id}/events`, { agent: false, headers: { authorization: `Bearer ${token}`, accept: 'text/event-stream' } }, (res) => {
      let buffered = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        buffered += chunk;
        let end: number;
        while ((end = buffered.indexOf('\n\n')) >= 0) {
          const frame = buffered.slice(0, end);
          buffered = buffered.slice(end + 2);
          if (frame.startsWith(':')) {
            stream.heartbeats.push(performance.now());
            continue;
          }
          const data = /^data: (.*)$/m.exec(frame)?.[1];
          if (data === undefined) continue;
          stream.firstSnapshot ??= performance.now();
          const snapshot = JSON.parse(data) as JobSnapshot;
          stream.phases.push(snapshot.phase);
          if (snapshot.state === 'succeeded' || snapshot.state === 'failed') stream.terminal = true;
        }
      });
      res.on('end', () => resolve());
      res.on('error', reject);
    });
    req.on('error', reject);
  });
  return stream;
}


const streams: Stream[] = [];
const openedAt = performance.now();
const OPEN_AT_ONCE = 50;
for (let round = 0; round < PER_JOB; round++) {
  // One stream per job per round, 50 opening at a time (a burst of 500 connections measures the
  // accept queue, not a stream's set-up), each batch waiting for its first snapshots.
  for (let i = 0; i < ids.length; i += OPEN_AT_ONCE) {
    const batch = ids.slice(i, i + OPEN_AT_ONCE).map(open);
    streams.push(...batch);
    while (batch.some((s) => s.firstSnapshot === null)) await new Promise((r) => setTimeout(r, 1));
  }
}
const setup = streams.map((s) => (s.firstSnapshot ?? Number.NaN) - s.opened).sort((a, b) => a - b);
console.log(
  `${streams.length} streams over ${JOBS} unfinished jobs opened in ${ms(performance.now() - openedAt)}; ` +
    `set-up (request to first snapshot) p50 ${ms(percentile(setup, 50))}, p99 ${ms(percentile(setup, 99))}`,
);

// Three heartbeat intervals with every stream open.
const watchFrom = performance.now();
await new Promise((r) => setTimeout(r, HEARTBEAT_MS * 3 + 500));
const gaps = streams.map((s) => {
  const beats = [watchFrom, ...s.heartbeats.filter((t) => t >= watchFrom), performance.now()];
  return Math.max(...beats.slice(1).map((t, i) => t - (beats[i] ?? t)));
});
gaps.sort((a, b) => a - b);
const late = gaps.filter((g) => g > HEARTBEAT_MS * 1.5).length;
console.log(
  `heartbeats every ${HEARTBEAT_MS} ms: largest gap per stream p50 ${ms(percentile(gaps, 50))}, p99 ${ms(percentile(gaps, 99))}, max ${ms(gaps.at(-1) ?? 0)}; ` +
    `${late} streams with a gap over 1.5 intervals; API RSS now ${peakRssMb(api.pid ?? 0).toFixed(0)} MB peak`,
);

// A worker runs the jobs: every stream must end with its job's terminal snapshot.
const releasedAt = performance.now();
await startWorker({ WORKER_CONCURRENCY: '16' });
await Promise.all(streams.map((s) => s.done));
const terminal = streams.filter((s) => s.terminal).length;
console.log(`released: all ${streams.length} streams ended in ${ms(performance.now() - releasedAt)}; ${terminal} received their terminal snapshot`);

agent.destroy();
await stopProcesses(children);
await registry.close();
await clearRedisPrefix(BENCH_REDIS_URL, prefix);
if (terminal !== streams.length) process.exitCode = 1;
