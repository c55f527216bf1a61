import { setTimeout as delay } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Analyze } from '../../src/jobs/runner.js';
import { analyze } from '../../src/sbom/analyze.js';
import { startStreamingHarness, submitJob, type StreamingHarness } from '../helpers/jobs.js';
import { JOBS } from '../helpers/service-processes.js';
import { SseClient } from '../helpers/sse.js';

let s: StreamingHarness;
beforeAll(async () => {
  // No crash backoff: the job is delivered again at once, while its first attempt still runs.
  s = await startStreamingHarness('lock-loss', { JOB_CRASH_BACKOFF_MS: '0' });
});
afterAll(() => s.close());

/** Keeps the event loop busy, as a slow synchronous parse on the worker's own thread would. */
function blockEventLoop(ms: number): void {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    // busy: no timer, no lock renewal, no stall check can run meanwhile
  }
}

describe('an attempt whose queue lock lapsed', () => {
  it('stops, and the job runs once more rather than stalling attempt after attempt', async () => {
    let calls = 0;
    // The first attempt blocks the event loop past the lock (2 s), then goes on working for a
    // while: BullMQ delivers the job again while that attempt still runs in this process.
    const slowFirst: Analyze = async (files, format, deps) => {
      calls++;
      if (calls === 1) {
        blockEventLoop(3_500);
        // Simulated work that ends when the attempt is stopped (or after 6 s).
        await delay(6_000, undefined, deps.signal ? { signal: deps.signal } : {}).catch(() => undefined);
        deps.signal?.throwIfAborted();
      }
      return analyze(files, format, deps);
    };
    const job = await submitJob(s.h, s.token);
    const events = new SseClient(`${s.base}${JOBS}/${job.id}/events`, s.token);
    const workers = await s.h.startWorkers({}, slowFirst);
    try {
      await events.ended;
      const last = events.snapshots().at(-1);
      expect(last).toMatchObject({ state: 'succeeded' });
      // Once, the old attempt's clean-up dropped the new attempt's lock renewal and the job
      // stalled until it failed at attempt 4.
      expect(Math.max(...events.snapshots().map((snapshot) => snapshot.attempt))).toBeLessThanOrEqual(2);
      expect(calls).toBe(2);
    } finally {
      await workers.close();
    }
  });
});
