import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jobChannel } from '../../src/jobs/events.js';
import type { JobSnapshot } from '../../src/jobs/snapshot.js';
import { LogWatcher, stopChild } from '../helpers/cli.js';
import { HOLDING_TERMINAL, spawnHeldWorker } from '../helpers/hold.js';
import { startStreamingHarness, submitJob, workerCliEnv, type StreamingHarness } from '../helpers/jobs.js';
import { JOBS } from '../helpers/service-processes.js';
import { SseClient } from '../helpers/sse.js';

const HEARTBEAT_MS = 2_000;

/**
 * A worker killed between the commit of a terminal snapshot and its publish: the publish is lost
 * for good, yet every stream must end with that snapshot within two heartbeat intervals.
 */
describe('a worker killed between the terminal commit and its publish', () => {
  let s: StreamingHarness;
  beforeAll(async () => {
    s = await startStreamingHarness('stranded', { SSE_HEARTBEAT_MS: String(HEARTBEAT_MS) });
  });
  afterAll(() => s.close());

  it('ends open streams with the terminal snapshot by their second heartbeat, and a re-claim publishes it again', async () => {
    const { h, token, base } = s;
    const worker = spawnHeldWorker('terminal', workerCliEnv(h));
    const logs = new LogWatcher(worker);
    let republished = (_snapshot: JobSnapshot): void => undefined;
    const published = new Promise<JobSnapshot>((resolve) => (republished = resolve));
    let stopListening = (): void => undefined;
    try {
      await logs.waitFor((l) => l['msg'] === 'worker started');
      const job = await submitJob(h, token);
      const streams = [0, 1, 2].map(() => new SseClient(`${base}${JOBS}/${job.id}/events`, token));
      for (const stream of streams) await stream.event(0);
      await logs.waitFor((l) => l['msg'] === HOLDING_TERMINAL);
      // Heartbeats counted rather than the wall clock: a loaded machine delays both alike.
      const heardAtCommit = streams.map((stream) => stream.comments.length);
      await stopChild(worker, 'SIGKILL');
      // Nothing will ever publish the terminal snapshot of that worker: the streams must find it.
      for (const stream of streams) await stream.ended;
      for (const stream of streams) expect(stream.snapshots().at(-1)).toMatchObject({ id: job.id, state: 'succeeded' });
      streams.forEach((stream, i) => expect(stream.comments.length - heardAtCommit[i]!).toBeLessThanOrEqual(2));

      // The queue entry of the killed worker stalls and is taken by another worker, whose claim
      // finds the job finished and publishes its terminal snapshot again (for streams elsewhere).
      stopListening = await h.services.hub.subscribe(jobChannel(h.config.redisPrefix, job.id), {
        onMessage: (message) => republished(JSON.parse(message) as JobSnapshot),
        onResync: () => undefined,
        onClose: () => undefined,
      });
      const workers = await h.startWorkers({ jobLockMs: 1_500 });
      try {
        const again = await published;
        expect(again).toEqual(await h.services.store.get(job.id));
        expect(again).toMatchObject({ state: 'succeeded', attempt: 1 });
      } finally {
        await workers.close();
      }
    } finally {
      stopListening();
      await stopChild(worker, 'SIGKILL');
    }
  }, 180_000);
});
