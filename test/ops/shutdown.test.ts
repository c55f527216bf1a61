import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JOBS_PATH, type JobSnapshot } from '../../src/jobs/snapshot.js';
import { onShutdownSignals } from '../../src/processes/signals.js';
import { freePort, LogWatcher, spawnCli, stopChild } from '../helpers/cli.js';
import { SMALL_NPM } from '../helpers/fixtures.js';
import { spawnHeldWorker } from '../helpers/hold.js';
import { startJobsHarness, type JobsHarness } from '../helpers/jobs.js';
import { SseClient } from '../helpers/sse.js';
import { packageTarball } from '../helpers/tarball.js';

let h: JobsHarness;
let token: string;
/** The registry holds its answer about `slowpoke` until released: a request in flight for as long as the test wants. */
let releaseSlowpoke = (): void => undefined;
const slowpokeGate = new Promise<void>((resolve) => (releaseSlowpoke = resolve));

beforeAll(async () => {
  h = await startJobsHarness(
    {},
    {
      packages: { slowpoke: { versions: { '1.0.0': { _tarball: await packageTarball({ 'index.js': '1;\n' }) } } } },
      holdFor: (path) => (path === '/slowpoke' ? slowpokeGate : undefined),
    },
  );
  token = await h.token('shutdown');
});
afterAll(() => h.close());

const env = (extra: Record<string, string>): Record<string, string> => ({
  DATABASE_URL: h.config.databaseUrl,
  REDIS_URL: h.config.redisUrl,
  REDIS_PREFIX: h.config.redisPrefix,
  npm_config_registry: `${h.registry.url}/`,
  SHUTDOWN_GRACE_MS: '500',
  JOB_LOCK_MS: '2000',
  PROGRESS_INTERVAL_MS: '0',
  ...extra,
});

async function startApi(): Promise<{ child: ReturnType<typeof spawnCli>; base: string }> {
  const port = await freePort();
  const child = spawnCli(['api'], env({ PORT: String(port) }));
  await new LogWatcher(child).waitFor((l) => String(l['msg']).startsWith('Server listening'));
  return { child, base: `http://127.0.0.1:${port}` };
}

describe('graceful shutdown', () => {
  it('loses nothing to a SIGTERM of the API during an event stream and a long request, nor of the worker during a job', async () => {
    const children: ReturnType<typeof spawnCli>[] = [];
    try {
      const api = await startApi();
      children.push(api.child);
      const heldWorker = spawnHeldWorker('enriching', env({}));
      children.push(heldWorker);
      const workerLogs = new LogWatcher(heldWorker);
      await workerLogs.waitFor((l) => l['msg'] === 'worker started');

      const submitted = await fetch(`${api.base}${JOBS_PATH}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ format: 'cyclonedx', files: SMALL_NPM() }),
      });
      expect(submitted.status).toBe(202);
      const job = (await submitted.json()) as JobSnapshot;
      const stream = new SseClient(`${api.base}${JOBS_PATH}/${job.id}/events`, token);
      await stream.waitFor((s) => s.phase === 'enriching');

      // A request in flight when the signal comes (its registry lookup is held): answered, not cut.
      const inFlight = fetch(`${api.base}/v1/list`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ target: 'npm:slowpoke@1.0.0', wait_timeout_ms: 200 }),
      });
      await h.registry.requested((path) => path === '/slowpoke');
      const apiExit = stopChild(api.child, 'SIGTERM');
      // The stream ends cleanly (no error) while the server drains.
      await stream.ended;
      releaseSlowpoke();
      const answered = await inFlight;
      expect(answered.status).toBe(200);
      expect(((await answered.json()) as { canonical_target: string }).canonical_target).toBe('npm:slowpoke@1.0.0');
      expect(await apiExit).toBe(0);

      // The worker holding the job is stopped: past its grace period it hands the job back.
      expect(await stopChild(heldWorker, 'SIGTERM')).toBe(0);
      expect(workerLogs.lines.some((l) => l['msg'] === 'job released for another worker (shutdown)')).toBe(true);

      // A new API and worker: the client reconnects and sees the job through.
      const next = await startApi();
      children.push(next.child);
      const worker = spawnCli(['worker'], env({}));
      children.push(worker);
      const resumed = new SseClient(`${next.base}${JOBS_PATH}/${job.id}/events`, token);
      const last = await resumed.waitFor((s) => s.state === 'succeeded' || s.state === 'failed');
      // The hand-back gave its attempt back: the job ran once to the end.
      expect(last).toMatchObject({ state: 'succeeded', attempt: 1 });
      const revisions = [...stream.snapshots(), ...resumed.snapshots()].map((s) => s.revision);
      expect(revisions).toEqual([...revisions].sort((a, b) => a - b));
      const result = await fetch(`${next.base}${last.result_url}`, { headers: { authorization: `Bearer ${token}` } });
      expect(result.status).toBe(200);
      expect(((await result.json()) as { bomFormat: string }).bomFormat).toBe('CycloneDX');
      for (const child of [next.child, worker]) expect(await stopChild(child, 'SIGTERM')).toBe(0);
    } finally {
      for (const child of children) await stopChild(child, 'SIGKILL');
    }
  }, 180_000);

  it('exits at once on a second signal while draining', async () => {
    const exits: number[] = [];
    let release = (): void => undefined;
    const draining = new Promise<void>((resolve) => (release = resolve));
    const stop = onShutdownSignals(() => draining, (code) => exits.push(code));
    try {
      process.emit('SIGTERM', 'SIGTERM');
      expect(exits).toEqual([]);
      process.emit('SIGINT', 'SIGINT');
      expect(exits).toEqual([130]);
    } finally {
      release();
      stop();
    }
  });
});
