import { randomUUID } from 'node:crypto';
import { eq, sql } from 'drizzle-orm';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lockfileJobs } from '../../src/db/schema/index.js';
import { EventHub, jobChannel } from '../../src/jobs/events.js';
import type { JobSnapshot } from '../../src/jobs/snapshot.js';
import { JobStatusCache } from '../../src/jobs/status-cache.js';
import { createLogger } from '../../src/logger.js';
import { startJobsHarness, submitJob, type JobsHarness } from '../helpers/jobs.js';

let h: JobsHarness;
let token: string;

beforeAll(async () => {
  // Polls trust what they hold for a minute: anything newer comes from a publish or not at all.
  h = await startJobsHarness({ JOB_STATUS_FRESH_MS: '60000' });
  token = await h.token('polls');
});
afterAll(() => h.close());

const JOBS = '/v1/experimental/lockfile-jobs';

async function poll(id: string, bearer = token): Promise<{ status: number; snapshot: JobSnapshot }> {
  const res = await h.app.inject({ method: 'GET', url: `${JOBS}/${id}`, headers: { authorization: `Bearer ${bearer}` } });
  return { status: res.statusCode, snapshot: res.json<JobSnapshot>() };
}

/** Moves a job on in Postgres only, as a worker whose publish was lost would leave it. */
async function advanceQuietly(id: string): Promise<JobSnapshot> {
  await h.database.db.update(lockfileJobs).set({ revision: sql`${lockfileJobs.revision} + 1`, state: 'running', phase: 'enriching' }).where(eq(lockfileJobs.id, id));
  return (await h.services.store.get(id))!;
}

/** Publishes a snapshot as a worker does after its commit; resolves once Redis delivered it to this process. */
async function publish(snapshot: JobSnapshot): Promise<void> {
  const receivers = await h.services.commands.publish(jobChannel(h.config.redisPrefix, snapshot.id), JSON.stringify(snapshot));
  expect(receivers).toBeGreaterThan(0);
  // The subscriber connection delivers in order: a PING answered on it comes after the message.
  await h.services.subscriber.ping();
}

describe('job status polls through the API', () => {
  it('answer from memory after the first read, follow published snapshots, and see a quiet change only on re-read', async () => {
    const job = await submitJob(h, token);
    expect((await poll(job.id)).snapshot).toMatchObject({ state: 'queued', revision: job.revision });
    const moved = await advanceQuietly(job.id);
    // Postgres moved on, nothing was published: the poll still shows what it read.
    expect((await poll(job.id)).snapshot.revision).toBe(job.revision);
    await publish(moved);
    expect((await poll(job.id)).snapshot).toMatchObject({ state: 'running', phase: 'enriching', revision: moved.revision });
    // An older revision arriving late does not go back.
    await publish(job);
    expect((await poll(job.id)).snapshot.revision).toBe(moved.revision);
  });

  it('answer a job submitted through this process from memory from its first poll, once its account polls here', async () => {
    expect((await poll(randomUUID())).status).toBe(404);
    const job = await submitJob(h, token);
    // Postgres moves on quietly: a first poll that read Postgres would see it.
    const moved = await advanceQuietly(job.id);
    expect((await poll(job.id)).snapshot).toMatchObject({ state: 'queued', revision: job.revision });
    await publish(moved);
    expect((await poll(job.id)).snapshot).toMatchObject({ state: 'running', revision: moved.revision });
    // Another account is still answered by Postgres alone.
    expect((await poll(job.id, await h.token('another-poller'))).status).toBe(404);
  });

  it('never answers another account from memory', async () => {
    const job = await submitJob(h, token);
    expect((await poll(job.id)).status).toBe(200);
    expect((await poll(job.id, await h.token('someone-else'))).status).toBe(404);
    expect((await poll(randomUUID())).status).toBe(404);
  });
});

describe('JobStatusCache', () => {
  const logger = createLogger('silent');
  const snapshot = (id: string, revision: number, expiresInMs = 60_000, at = 0): JobSnapshot => ({
    id,
    kind: 'sbom',
    format: 'text',
    state: 'running',
    phase: 'resolving',
    attempt: 1,
    revision,
    counts: {},
    error: null,
    expires_at: new Date(Date.now() + at + expiresInMs).toISOString(),
    result_url: `${JOBS}/${id}/result`,
  });

  it('reads Postgres again once its last read is older than freshMs, and shares a read in flight', async () => {
    let now = Date.now();
    const cache = new JobStatusCache({ hub: h.services.hub, prefix: h.config.redisPrefix, logger, freshMs: 1_000, now: () => now });
    const id = randomUUID();
    let reads = 0;
    let revision = 1;
    const read = async (): Promise<JobSnapshot> => {
      reads++;
      await new Promise((resolve) => setImmediate(resolve));
      return snapshot(id, revision);
    };
    const first = await Promise.all([cache.get(id, 'a', read), cache.get(id, 'a', read), cache.get(id, 'a', read)]);
    expect(first.map((s) => s?.revision)).toEqual([1, 1, 1]);
    expect(reads).toBe(1);
    revision = 2;
    now += 999;
    expect((await cache.get(id, 'a', read))?.revision).toBe(1);
    now += 1;
    expect((await cache.get(id, 'a', read))?.revision).toBe(2);
    expect(reads).toBe(2);
    cache.close();
  });

  it('does not serve an expired snapshot, nor one Postgres no longer has', async () => {
    const cache = new JobStatusCache({ hub: h.services.hub, prefix: h.config.redisPrefix, logger, freshMs: 60_000 });
    const id = randomUUID();
    let reads = 0;
    expect(await cache.get(id, 'a', () => Promise.resolve((reads++, snapshot(id, 1, -1))))).not.toBeNull();
    expect(await cache.get(id, 'a', () => Promise.resolve((reads++, null)))).toBeNull();
    expect(reads).toBe(2);
    cache.close();
  });

  it('leaves each job channel once the job goes unpolled, and when closed', async () => {
    let now = Date.now();
    const cache = new JobStatusCache({ hub: h.services.hub, prefix: h.config.redisPrefix, logger, freshMs: 60_000, idleMs: 1_000, now: () => now });
    const ids = [randomUUID(), randomUUID()];
    const channels = h.services.hub.channelCount;
    for (const id of ids) await cache.get(id, 'a', () => Promise.resolve(snapshot(id, 1)));
    expect(h.services.hub.channelCount).toBe(channels + 2);
    now += 1_001;
    await cache.get(ids[0]!, 'a', () => Promise.resolve(snapshot(ids[0]!, 1)));
    cache.forgetIdle();
    expect(cache.size).toBe(1);
    expect(h.services.hub.channelCount).toBe(channels + 1);
    cache.close();
    expect(cache.size).toBe(0);
    expect(h.services.hub.channelCount).toBe(channels);
  });

  it('keeps a tracked snapshot for its owner once Redis confirmed its channel, never going back a revision', async () => {
    const cache = new JobStatusCache({ hub: h.services.hub, prefix: h.config.redisPrefix, logger, freshMs: 60_000 });
    const id = randomUUID();
    let reads = 0;
    const read = (): Promise<JobSnapshot> => Promise.resolve((reads++, snapshot(id, 9)));
    // An account that never polled here is not expected to: its job is not tracked.
    await cache.track(snapshot(id, 3), 'a');
    expect(cache.size).toBe(0);
    await cache.get(randomUUID(), 'a', () => Promise.resolve(null));
    const channels = h.services.hub.channelCount;
    await cache.track(snapshot(id, 3), 'a');
    expect(h.services.hub.channelCount).toBe(channels + 1);
    expect((await cache.get(id, 'a', read))?.revision).toBe(3);
    expect(reads).toBe(0);
    // Tracking again (a replayed submission) changes nothing; another account reads Postgres.
    await cache.track(snapshot(id, 1), 'a');
    expect((await cache.get(id, 'a', read))?.revision).toBe(3);
    expect((await cache.get(id, 'b', read))?.revision).toBe(9);
    expect(reads).toBe(1);
    cache.close();
    // Nor is the job of an account whose last poll is older than pollerMemoryMs.
    let now = Date.now();
    const forgetful = new JobStatusCache({ hub: h.services.hub, prefix: h.config.redisPrefix, logger, freshMs: 60_000, pollerMemoryMs: 1_000, now: () => now });
    await forgetful.get(randomUUID(), 'a', () => Promise.resolve(null));
    now += 1_001;
    const untracked = randomUUID();
    await forgetful.track(snapshot(untracked, 1), 'a');
    expect((await forgetful.get(untracked, 'a', () => Promise.resolve((reads++, snapshot(untracked, 2)))))?.revision).toBe(2);
    expect(reads).toBe(2);
    forgetful.close();
    const off = new JobStatusCache({ hub: h.services.hub, prefix: h.config.redisPrefix, logger, freshMs: 0 });
    await off.track(snapshot(id, 3), 'a');
    expect(off.size).toBe(0);
  });

  it('reads Postgres on every poll while Redis cannot confirm subscriptions', async () => {
    const down = new Redis({ host: '127.0.0.1', port: 1, lazyConnect: true, enableOfflineQueue: false, retryStrategy: () => null });
    down.on('error', () => undefined);
    await down.connect().catch(() => undefined);
    const hub = new EventHub(down, logger, 200);
    const cache = new JobStatusCache({ hub, prefix: 'x', logger, freshMs: 60_000 });
    const id = randomUUID();
    let reads = 0;
    await cache.track(snapshot(id, 1), 'a');
    expect(cache.size).toBe(0);
    for (let i = 0; i < 3; i++) expect((await cache.get(id, 'a', () => Promise.resolve((reads++, snapshot(id, 1)))))?.revision).toBe(1);
    expect(reads).toBe(3);
    expect(cache.size).toBe(0);
    cache.close();
    down.disconnect();
  });
});
