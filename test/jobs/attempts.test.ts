import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lockfileJobs } from '../../src/db/schema/index.js';
import type { JobSnapshot } from '../../src/jobs/snapshot.js';
import { LogWatcher, stopChild } from '../helpers/cli.js';
import { HOLDING, spawnHeldWorker } from '../helpers/hold.js';
import { startStreamingHarness, submitJob, workerCliEnv, type JobsHarness, type StreamingHarness } from '../helpers/jobs.js';
import { JOBS } from '../helpers/service-processes.js';
import { SseClient } from '../helpers/sse.js';

let s: StreamingHarness;
let h: JobsHarness;
beforeAll(async () => {
  s = await startStreamingHarness('attempts', { JOB_CRASH_BACKOFF_MS: '6000' });
  h = s.h;
});
afterAll(() => s.close());

const submit = (): Promise<JobSnapshot> => submitJob(h, s.token);

/** Leaves the row as a worker that died mid-attempt leaves it: running, with its attempt. */
async function forgeCrashed(id: string, attempt: number): Promise<void> {
  await h.database.db.update(lockfileJobs).set({ state: 'running', phase: 'enriching', attempt }).where(eq(lockfileJobs.id, id));
}

const stream = (id: string) => new SseClient(`${s.base}${JOBS}/${id}/events`, s.token);

describe('attempt accounting', () => {
  it('fails a job whose last allowed attempt crashed without showing an attempt past the maximum', async () => {
    const job = await submit();
    await forgeCrashed(job.id, h.config.jobMaxAttempts);
    const events = stream(job.id);
    const workers = await h.startWorkers();
    try {
      await events.ended;
      expect(events.snapshots().at(-1)).toMatchObject({ state: 'failed', error: 'execution_failed', attempt: h.config.jobMaxAttempts });
      expect(Math.max(...events.snapshots().map((s) => s.attempt))).toBe(h.config.jobMaxAttempts);
    } finally {
      await workers.close();
    }
  });

  it('runs a job that crashed its worker again after a backoff, behind the jobs waiting', async () => {
    const crashed = await submit();
    await forgeCrashed(crashed.id, 1);
    const waiting = await submit();
    const crashedEvents = stream(crashed.id);
    const waitingEvents = stream(waiting.id);
    const workers = await h.startWorkers({ workerConcurrency: 1 });
    try {
      // The crashed attempt counts, and the job goes back to the queue, delayed.
      const requeued = await crashedEvents.waitFor((s) => s.state === 'queued' && s.revision > crashed.revision);
      expect(requeued.attempt).toBe(1);
      expect(await h.services.sbomQueue.getJob(crashed.id).then((j) => j?.getState())).toBe('delayed');
      await waitingEvents.ended;
      expect(waitingEvents.snapshots().at(-1)).toMatchObject({ state: 'succeeded', attempt: 1 });
      expect(crashedEvents.snapshots().at(-1)).toMatchObject({ state: 'queued' });
      await crashedEvents.ended;
      expect(crashedEvents.snapshots().at(-1)).toMatchObject({ state: 'succeeded', attempt: 2 });
    } finally {
      await workers.close();
    }
  });
});

describe('a job whose workers are killed again and again', () => {
  it('is failed after JOB_MAX_ATTEMPTS crashed attempts, never showing more', async () => {
    const job = await submit();
    const events = stream(job.id);
    const env = workerCliEnv(h, { JOB_LOCK_MS: '1000', JOB_CRASH_BACKOFF_MS: '100' });
    for (let attempt = 1; attempt <= h.config.jobMaxAttempts; attempt++) {
      const worker = spawnHeldWorker('enriching', env);
      try {
        const logs = new LogWatcher(worker);
        await logs.waitFor((l) => l['msg'] === HOLDING);
        await events.waitFor((s) => s.phase === 'enriching' && s.attempt === attempt);
      } finally {
        await stopChild(worker, 'SIGKILL');
      }
    }
    const last = spawnHeldWorker('enriching', env);
    try {
      await events.ended;
    } finally {
      await stopChild(last, 'SIGKILL');
    }
    expect(events.snapshots().at(-1)).toMatchObject({ state: 'failed', error: 'execution_failed', attempt: h.config.jobMaxAttempts });
    expect(Math.max(...events.snapshots().map((s) => s.attempt))).toBe(h.config.jobMaxAttempts);
    // Each attempt counted once, in order: no snapshot of an older attempt after a newer one.
    const attempts = events.snapshots().map((s) => s.attempt);
    expect(attempts).toEqual([...attempts].sort((a, b) => a - b));
  }, 180_000);
});
