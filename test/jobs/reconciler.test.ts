import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lockfileJobs } from '../../src/db/schema/index.js';
import { reconcileJobs, type UnknownEntries } from '../../src/jobs/maintenance.js';
import type { JobSnapshot } from '../../src/jobs/snapshot.js';
import type { JobStore } from '../../src/jobs/store.js';
import { createLogger } from '../../src/logger.js';
import { PARSER_CONTRACT_VERSION } from '../../src/sbom/contract.js';
import { ensureAccount } from '../../src/accounts/tokens.js';
import { startWorkers } from '../../src/processes/workers.js';
import { SMALL_NPM } from '../helpers/fixtures.js';
import { startStreamingHarness, submitJob, type JobsHarness, type StreamingHarness } from '../helpers/jobs.js';
import { captureLogs } from '../helpers/logs.js';
import { pollUntil } from '../helpers/poll.js';
import { JOBS } from '../helpers/service-processes.js';
import { SseClient } from '../helpers/sse.js';

const RECONCILE_INTERVAL_MS = 4_000;
const OPTIONS = { graceMs: 500, batch: 500, maxAttempts: 3 };
const silent = createLogger('silent');

let s: StreamingHarness;
let h: JobsHarness;
beforeAll(async () => {
  s = await startStreamingHarness('reconciler', { RECONCILE_INTERVAL_MS: String(RECONCILE_INTERVAL_MS), RECONCILE_GRACE_MS: '500' }, { privateRedis: true });
  h = s.h;
});
afterAll(() => s.close());

const submit = (): Promise<JobSnapshot> => submitJob(h, s.token);

/** Makes a job look untouched for an hour (past any grace period). */
async function age(id: string): Promise<void> {
  await h.database.db.update(lockfileJobs).set({ updatedAt: sql`now() - interval '1 hour'` }).where(eq(lockfileJobs.id, id));
}

const queueState = async (id: string): Promise<string> => (await (await h.services.sbomQueue.getJob(id))?.getState()) ?? 'missing';

describe('the reconciler', () => {
  it('re-checks Postgres before re-enqueueing: a job that finished since the batch was read stays finished', async () => {
    const job = await submit();
    await (await h.services.sbomQueue.getJob(job.id))?.remove();
    await age(job.id);
    let reads = 0;
    // The job finishes (and its queue entry goes) right after the first read of the batch.
    const racing = Object.create(h.services.store) as JobStore;
    racing.unfinishedOlderThan = async (graceMs, limit) => {
      const rows = await h.services.store.unfinishedOlderThan(graceMs, limit);
      if (++reads === 1) await h.database.db.update(lockfileJobs).set({ state: 'succeeded', phase: 'succeeded' }).where(eq(lockfileJobs.id, job.id));
      return rows;
    };
    expect(await reconcileJobs(racing, h.services.sbomQueue, OPTIONS, silent)).toEqual({ checked: 1, requeued: 0 });
    expect(await queueState(job.id)).toBe('missing');
  });

  it('re-enqueues an unfinished job with no queue entry', async () => {
    const job = await submit();
    await (await h.services.sbomQueue.getJob(job.id))?.remove();
    await age(job.id);
    const result = await reconcileJobs(h.services.store, h.services.sbomQueue, OPTIONS, silent);
    expect(result.requeued).toBeGreaterThanOrEqual(1);
    expect(await queueState(job.id)).toBe('waiting');
  });

  it('takes an entry BullMQ calls unknown for dead only once it stayed unknown for the grace period', async () => {
    const job = await submit();
    // The job's hash remains, but it is in no list: BullMQ reports `unknown`.
    await h.services.commands.lrem(`${h.config.redisPrefix}:sbom:wait`, 0, job.id);
    expect(await queueState(job.id)).toBe('unknown');
    await age(job.id);
    const unknown: UnknownEntries = new Map();
    expect((await reconcileJobs(h.services.store, h.services.sbomQueue, OPTIONS, silent, unknown)).requeued).toBe(0);
    expect(unknown.has(job.id)).toBe(true);
    expect((await reconcileJobs(h.services.store, h.services.sbomQueue, OPTIONS, silent, unknown)).requeued).toBe(0);
    // Seen unknown a grace period ago: now it is dead, removed and added again.
    unknown.set(job.id, Date.now() - OPTIONS.graceMs - 1);
    expect((await reconcileJobs(h.services.store, h.services.sbomQueue, OPTIONS, silent, unknown)).requeued).toBe(1);
    expect(await queueState(job.id)).toBe('waiting');
    expect(unknown.has(job.id)).toBe(false);
  });
});

describe('after Redis lost everything under running workers', () => {
  /** Waits until both maintenance schedulers exist again. */
  async function schedulesBack(): Promise<void> {
    const queue = h.services.maintenanceQueue;
    let seen = 'none';
    await pollUntil(
      'the maintenance schedules back',
      async () => {
        const [reconcile, expire] = await Promise.all([queue.getJobScheduler('reconcile'), queue.getJobScheduler('expire')]).catch(() => [undefined, undefined]);
        seen = [reconcile === undefined ? null : 'reconcile', expire === undefined ? null : 'expire'].filter(Boolean).join(', ') || 'none';
        return reconcile !== undefined && expire !== undefined ? true : undefined;
      },
      { withinMs: 10 * RECONCILE_INTERVAL_MS, everyMs: 50, describe: () => `schedules present: ${seen}` },
    );
  }

  it('restores the maintenance schedules after a FLUSHALL or a restart, and re-enqueues only unfinished jobs', async () => {
    const logs = captureLogs();
    const workers = await startWorkers({ config: h.config, database: h.database, logger: logs.logger, npmOptions: await h.registry.npmOptions() });
    try {
      const finished = await submit();
      const finishedEvents = new SseClient(`${s.base}${JOBS}/${finished.id}/events`, s.token);
      await finishedEvents.ended;
      const done = await h.services.store.get(finished.id);
      expect(done).toMatchObject({ state: 'succeeded' });

      // The workers' own check (twice per reconcile interval) recreates them; how soon is a
      // matter of timers on a possibly loaded machine, so the poll's bound is ten intervals.
      await h.services.commands.flushall();
      await schedulesBack();

      // A committed job whose enqueue Redis never got: the reconciler finds it in Postgres.
      const accountId = await ensureAccount(h.database.db, 'reconciler');
      const created = await h.services.store.create({
        accountId, format: 'text', files: SMALL_NPM(), environment: null, totalBytes: 1, idempotencyKey: null, requestHash: 'orphan', parserContract: PARSER_CONTRACT_VERSION, ttlSeconds: 3600,
      });
      if (created.kind !== 'created') throw new Error('not created');
      const orphan = created.snapshot;
      await age(orphan.id);
      const orphanEvents = new SseClient(`${s.base}${JOBS}/${orphan.id}/events`, s.token);
      await orphanEvents.ended;
      expect(orphanEvents.snapshots().at(-1)).toMatchObject({ state: 'succeeded', attempt: 1 });

      // Redis restarts empty (same port): the workers recreate the schedules again.
      await s.restartRedis();
      await schedulesBack();

      // The finished job was never run again, nor enqueued.
      expect(await h.services.store.get(finished.id)).toEqual(done);
      const requeued = logs.lines().filter((l) => l['msg'] === 'reconciler re-enqueued a job with no live queue entry').map((l) => l['jobId']);
      expect(requeued).toContain(orphan.id);
      expect(requeued).not.toContain(finished.id);
    } finally {
      await workers.close();
    }
    // Four waits on a loaded machine's timers and processes: a deadline for being stuck, not a speed.
  }, 120_000);
});
