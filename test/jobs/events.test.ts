import { connect } from 'node:net';
import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { lockfileJobs } from '../../src/db/schema/index.js';
import { jobChannel } from '../../src/jobs/events.js';
import type { JobSnapshot } from '../../src/jobs/snapshot.js';
import { SMALL_NPM } from '../helpers/fixtures.js';
import { startJobsHarness, type JobsHarness } from '../helpers/jobs.js';
import { SseClient } from '../helpers/sse.js';

let h: JobsHarness;
let token: string;
let base: string;

beforeAll(async () => {
  h = await startJobsHarness({ SSE_HEARTBEAT_MS: '200' });
  token = await h.token('events');
  base = await h.listen();
});
afterAll(() => h.close());

const JOBS = '/v1/experimental/lockfile-jobs';

async function submit(format = 'text'): Promise<JobSnapshot> {
  const res = await h.app.inject({
    method: 'POST',
    url: JOBS,
    headers: { authorization: `Bearer ${token}` },
    payload: { format, files: SMALL_NPM() },
  });
  return res.json<JobSnapshot>();
}

const events = (id: string) => new SseClient(`${base}${JOBS}/${id}/events`, token);

/** Writes a snapshot change straight to Postgres, as a worker's progress write would. */
async function bumpRevision(id: string, phase = 'queued'): Promise<JobSnapshot> {
  await h.database.db
    .update(lockfileJobs)
    .set({ revision: sql`${lockfileJobs.revision} + 1`, phase })
    .where(eq(lockfileJobs.id, id));
  const snapshot = await h.services.store.get(id);
  return snapshot!;
}

describe('job events stream', () => {
  it('sends only the terminal snapshot to a client connecting after the job finished, then closes', async () => {
    const job = await submit();
    const workers = await h.startWorkers();
    await events(job.id).ended;
    await workers.close();
    const late = events(job.id);
    await late.ended;
    expect(late.snapshots()).toHaveLength(1);
    expect(late.snapshots()[0]).toMatchObject({ state: 'succeeded' });
  });

  it('gives a reconnecting client the latest snapshot only', async () => {
    const job = await submit();
    const first = events(job.id);
    expect(JSON.parse((await first.event(0)).data)).toMatchObject({ revision: 0 });
    first.close();
    await first.ended;
    await bumpRevision(job.id);
    const latest = await bumpRevision(job.id);
    const again = events(job.id);
    const received = JSON.parse((await again.event(0)).data) as JobSnapshot;
    expect(received).toEqual(latest);
    // Nothing older is replayed: the next thing on the stream is a heartbeat, not an event.
    await again.nextComment();
    expect(again.events).toHaveLength(1);
    again.close();
  });

  it('forwards published snapshots in revision order and never sends an older one', async () => {
    const job = await submit();
    const stream = events(job.id);
    await stream.event(0);
    const newer = await bumpRevision(job.id);
    await h.services.commands.publish(jobChannel(h.config.redisPrefix, job.id), JSON.stringify(newer));
    // A stale message (lower revision) arriving late is dropped.
    await h.services.commands.publish(jobChannel(h.config.redisPrefix, job.id), JSON.stringify({ ...newer, revision: 0 }));
    const newest = await bumpRevision(job.id);
    await h.services.commands.publish(jobChannel(h.config.redisPrefix, job.id), JSON.stringify(newest));
    await stream.event(2);
    expect(stream.snapshots().map((s) => s.revision)).toEqual([0, newer.revision, newest.revision]);
    stream.close();
  });

  it('sends heartbeats while the job is idle', async () => {
    const job = await submit();
    const stream = events(job.id);
    await stream.event(0);
    await stream.nextComment();
    expect(stream.comments).toContain('heartbeat');
    stream.close();
  });

  it('delivers the terminal snapshot to 200 concurrent streams and closes them all', async () => {
    const job = await submit('cyclonedx');
    const clients = Array.from({ length: 200 }, () => events(job.id));
    try {
      await Promise.all(clients.map((c) => c.event(0)));
      expect(h.services.hub.size).toBeGreaterThanOrEqual(200);
      // A lock far longer than the run: the harness's 2 s lock can lapse on a loaded machine.
      const workers = await h.startWorkers({ jobLockMs: 30_000 });
      try {
        await Promise.all(clients.map((c) => c.ended));
        for (const c of clients) expect(c.snapshots().at(-1)).toMatchObject({ state: 'succeeded' });
      } finally {
        await workers.close();
      }
    } finally {
      // Whatever the outcome: streams left open would be counted by the next tests' hub checks.
      for (const c of clients) c.close();
    }
    await vi.waitFor(() => expect(h.services.hub.size).toBe(0));
    // 200 streams set up and read by this one test process: minutes on a machine loaded by a second suite.
  }, 180_000);

  it('leaves no subscription behind when a client disconnects', async () => {
    const job = await submit();
    const before = h.services.hub.channelCount;
    const stream = events(job.id);
    await stream.event(0);
    expect(h.services.hub.channelCount).toBe(before + 1);
    stream.close();
    await vi.waitFor(() => expect(h.services.hub.channelCount).toBe(before));
    const channels = (await h.services.commands.call('PUBSUB', 'CHANNELS', jobChannel(h.config.redisPrefix, job.id))) as string[];
    expect(channels).toEqual([]);
  });

  it('re-reads every open stream after the subscriber reconnects', async () => {
    const job = await submit();
    const stream = events(job.id);
    await stream.event(0);
    // A change committed without a publish (as if the message was lost while Redis was away).
    const changed = await bumpRevision(job.id, 'queued');
    // RESP3 lets the subscriber connection tell its own id; killing it forces a reconnect.
    const id = await h.services.subscriber.client('ID');
    await h.services.commands.call('CLIENT', 'KILL', 'ID', String(id));
    const resynced = JSON.parse((await stream.event(1)).data) as JobSnapshot;
    expect(resynced.revision).toBe(changed.revision);
    stream.close();
  });

  it('keeps serving other clients while one never reads', async () => {
    const job = await submit();
    const { port } = new URL(base);
    const slow = connect(Number(port), '127.0.0.1');
    // The server may drop a client that never reads (its buffer full): that socket's EPIPE or
    // reset is what this test provokes, not a failure of it.
    const slowErrors: string[] = [];
    slow.on('error', (error: NodeJS.ErrnoException) => slowErrors.push(error.code ?? error.message));
    slow.pause();
    await new Promise<void>((resolve) => slow.once('connect', () => resolve()));
    slow.write(`GET ${JOBS}/${job.id}/events HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\n\r\n`);
    const fast = events(job.id);
    await fast.event(0);
    await vi.waitFor(() => expect(h.services.hub.size).toBeGreaterThanOrEqual(2));
    // Flood the channel with large snapshots: the slow socket's buffer fills, the other keeps up.
    const big = { ...(await h.services.store.get(job.id))!, counts: { resolved: 1 }, padding: 'x'.repeat(256 * 1024) };
    for (let i = 1; i <= 64; i++) {
      await h.services.commands.publish(jobChannel(h.config.redisPrefix, job.id), JSON.stringify({ ...big, revision: i }));
    }
    await fast.event(64);
    expect(fast.snapshots().at(-1)?.revision).toBe(64);
    fast.close();
    slow.destroy();
    await vi.waitFor(() => expect(h.services.hub.size).toBe(0));
    expect(slowErrors.every((code) => code === 'EPIPE' || code === 'ECONNRESET')).toBe(true);
  });
});
