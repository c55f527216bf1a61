import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JobSnapshot } from '../../src/jobs/snapshot.js';
import { LogWatcher, spawnCli, stopChild } from '../helpers/cli.js';
import { SMALL_NPM } from '../helpers/fixtures.js';
import { HOLDING, spawnHeldWorker, startHeldWorkers } from '../helpers/hold.js';
import { startJobsHarness, startStreamingHarness, workerCliEnv, type JobsHarness, type StreamingHarness } from '../helpers/jobs.js';
import { SseClient } from '../helpers/sse.js';

const JOBS = '/v1/experimental/lockfile-jobs';

async function submit(h: JobsHarness, token: string): Promise<JobSnapshot> {
  const res = await h.app.inject({
    method: 'POST',
    url: JOBS,
    headers: { authorization: `Bearer ${token}` },
    payload: { format: 'cyclonedx', files: SMALL_NPM() },
  });
  expect(res.statusCode).toBe(202);
  return res.json<JobSnapshot>();
}

describe('worker crash', () => {
  let h: JobsHarness;
  let token: string;
  let base: string;
  beforeAll(async () => {
    h = await startJobsHarness();
    token = await h.token('crash');
    base = await h.listen();
  });
  afterAll(() => h.close());

  const workerEnv = (extra: Record<string, string> = {}) => workerCliEnv(h, extra);

  it('hands a job held by a kill -9ed worker to another, and fences the old attempt out', async () => {
    const first = spawnHeldWorker('enriching', workerEnv());
    const firstLogs = new LogWatcher(first);
    let second: ReturnType<typeof spawnCli> | undefined;
    try {
      await firstLogs.waitFor((l) => l['msg'] === 'worker started');
      const job = await submit(h, token);
      const stream = new SseClient(`${base}${JOBS}/${job.id}/events`, token);
      const held = await stream.waitFor((s) => s.phase === 'enriching');
      expect(held).toMatchObject({ state: 'running', attempt: 1 });
      await firstLogs.waitFor((l) => l['msg'] === HOLDING);

      await stopChild(first, 'SIGKILL');
      second = spawnCli(['worker'], workerEnv());
      const last = await stream.waitFor((s) => s.state === 'succeeded' || s.state === 'failed');
      expect(last).toMatchObject({ state: 'succeeded', attempt: 2 });
      const revisions = stream.snapshots().map((s) => s.revision);
      expect(revisions).toEqual([...revisions].sort((a, b) => a - b));

      // A late write from the first attempt changes nothing.
      const store = h.services.store;
      expect(await store.progress(job.id, 1, 'rendering', { resolved: 1 })).toBeNull();
      expect(await store.fail(job.id, 1, 'execution_failed')).toBeNull();
      expect(await store.succeed(job.id, 1, { mediaType: 'text/plain', document: 'forged', byteSize: 6 }, {})).toBeNull();
      expect(await store.requeue(job.id, 1)).toBeNull();
      expect(await store.get(job.id)).toEqual(last);
      const result = await h.app.inject({ method: 'GET', url: last.result_url, headers: { authorization: `Bearer ${token}` } });
      expect(result.statusCode).toBe(200);
      expect(result.body).not.toBe('forged');
      expect(await stopChild(second, 'SIGTERM')).toBe(0);
    } finally {
      await stopChild(first, 'SIGKILL');
      if (second) await stopChild(second, 'SIGKILL');
    }
  }, 180_000);
});

describe('Redis loses everything', () => {
  let s: StreamingHarness;
  let h: JobsHarness;
  let token: string;
  let base: string;
  beforeAll(async () => {
    s = await startStreamingHarness('flush', {}, { privateRedis: true });
    ({ h, token, base } = s);
  });
  afterAll(() => s.close());

  it('re-enqueues the job from Postgres after FLUSHALL, and it completes', async () => {
    const job = await submit(h, token);
    expect(await h.services.sbomQueue.getJob(job.id)).toBeDefined();
    await h.services.commands.flushall();
    expect(await h.services.sbomQueue.getJob(job.id)).toBeUndefined();

    const stream = new SseClient(`${base}${JOBS}/${job.id}/events`, token);
    await stream.event(0);
    // A lock far longer than the run, so that the only way to a second attempt would be a re-enqueue
    // gone wrong (the harness's 2 s lock lapsed on a loaded machine and counted an attempt more).
    const workers = await h.startWorkers({ jobLockMs: 30_000 });
    try {
      await stream.ended;
      expect(stream.snapshots().at(-1)).toMatchObject({ state: 'succeeded', attempt: 1 });
    } finally {
      await workers.close();
    }
  });

  it('recreates the maintenance schedules when they vanish under running workers', async () => {
    const workers = await h.startWorkers();
    try {
      await h.services.commands.flushall();
      const job = await submit(h, token);
      await h.services.commands.flushall();
      const stream = new SseClient(`${base}${JOBS}/${job.id}/events`, token);
      await stream.ended;
      expect(stream.snapshots().at(-1)).toMatchObject({ state: 'succeeded' });
    } finally {
      await workers.close();
    }
  });
});

describe('graceful worker shutdown', () => {
  let h: JobsHarness;
  let token: string;
  let base: string;
  beforeAll(async () => {
    h = await startJobsHarness();
    token = await h.token('shutdown');
    base = await h.listen();
  });
  afterAll(() => h.close());

  it('finishes a running job within the grace period', async () => {
    const job = await submit(h, token);
    const workers = await h.startWorkers({ shutdownGraceMs: 30_000 });
    const stream = new SseClient(`${base}${JOBS}/${job.id}/events`, token);
    await stream.waitFor((s) => s.state === 'running');
    await workers.close();
    await stream.ended;
    expect(stream.snapshots().at(-1)).toMatchObject({ state: 'succeeded', attempt: 1 });
  });

  it('hands a job that outlives the grace period back to the queue without using an attempt; another worker finishes it', async () => {
    const job = await submit(h, token);
    const stream = new SseClient(`${base}${JOBS}/${job.id}/events`, token);
    const holding = await startHeldWorkers(h, 'enriching', { shutdownGraceMs: 200 });
    await stream.waitFor((s) => s.phase === 'enriching');
    await holding.close();
    // The hand-back gives the attempt back: the job did not fail.
    const released = await stream.waitFor((s) => s.state === 'queued' && s.revision > 1);
    expect(released).toMatchObject({ phase: 'queued', attempt: 0 });
    expect(await h.services.sbomQueue.getJob(job.id).then((j) => j?.getState())).toBe('waiting');

    const workers = await h.startWorkers();
    try {
      await stream.ended;
      expect(stream.snapshots().at(-1)).toMatchObject({ state: 'succeeded', attempt: 1 });
    } finally {
      await workers.close();
    }
  });

  it('lets three rolling restarts hand the same job back without failing it', async () => {
    const job = await submit(h, token);
    const stream = new SseClient(`${base}${JOBS}/${job.id}/events`, token);
    let handedBack = -1;
    for (let round = 1; round <= 3; round++) {
      const holding = await startHeldWorkers(h, 'enriching', { shutdownGraceMs: 100, jobMaxAttempts: 1 });
      const held = await stream.waitFor((s) => s.phase === 'enriching' && s.revision > handedBack);
      expect(held.attempt).toBe(1);
      await holding.close();
      handedBack = (await stream.waitFor((s) => s.state === 'queued' && s.revision > held.revision)).revision;
    }
    const workers = await h.startWorkers({ jobMaxAttempts: 1 });
    try {
      await stream.ended;
      expect(stream.snapshots().at(-1)).toMatchObject({ state: 'succeeded', attempt: 1 });
      expect(Math.max(...stream.snapshots().map((s) => s.attempt))).toBe(1);
    } finally {
      await workers.close();
    }
    // Four sets of workers started and stopped (each with its analysis threads): over a minute on a loaded machine.
  }, 180_000);
});
