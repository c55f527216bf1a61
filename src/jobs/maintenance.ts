import type { Queue } from 'bullmq';
import type { Logger } from '../logger.js';
import { enqueueInventory, enqueueSbomJob, preparationQueue, type PreparationQueues, type SbomQueue } from './queues.js';
import type { JobStore } from './store.js';

/** Queue states in which a BullMQ job will still be processed. */
const LIVE_STATES = new Set(['waiting', 'active', 'delayed', 'prioritized', 'waiting-children']);

export interface ReconcileOptions {
  readonly graceMs: number;
  readonly batch: number;
  readonly maxAttempts: number;
}

/**
 * Postgres is the truth, Redis is delivery: every unfinished job without a live queue entry
 * (Redis lost it, or it failed there) is enqueued again under its own id.
 */
export async function reconcileJobs(
  store: JobStore,
  queue: SbomQueue,
  options: ReconcileOptions,
  logger: Logger,
): Promise<{ checked: number; requeued: number }> {
  const candidates = await store.unfinishedOlderThan(options.graceMs, options.batch);
  let requeued = 0;
  for (const { id } of candidates) {
    const existing = await queue.getJob(id);
    const state = existing ? await existing.getState() : 'missing';
    if (LIVE_STATES.has(state)) continue;
    if (existing) await existing.remove().catch(() => undefined);
    await enqueueSbomJob(queue, id, options.maxAttempts);
    requeued++;
    logger.warn({ jobId: id, queueState: state }, 'reconciler re-enqueued a job with no live queue entry');
  }
  return { checked: candidates.length, requeued };
}

/** What the inventory reconciler needs of the inventory store (kept narrow: jobs/ stays below inventory/). */
export interface UnfinishedInventories {
  unfinishedOlderThan(graceMs: number, limit: number): Promise<readonly { id: string; kind: string }[]>;
}

/** The same rule for inventory preparations: unfinished without a live queue entry → enqueue again. */
export async function reconcileInventories(
  store: UnfinishedInventories,
  queues: PreparationQueues,
  graceMs: number,
  logger: Logger,
): Promise<number> {
  let requeued = 0;
  for (const { id, kind } of await store.unfinishedOlderThan(graceMs, 500)) {
    const existing = await preparationQueue(queues, kind).getJob(`inv-${id}`);
    const state = existing ? await existing.getState() : 'missing';
    if (LIVE_STATES.has(state)) continue;
    if (existing) await existing.remove().catch(() => undefined);
    await enqueueInventory(queues, id, kind);
    requeued++;
    logger.warn({ inventoryId: id, queueState: state }, 'reconciler re-enqueued an inventory preparation');
  }
  return requeued;
}

/** Deletes expired jobs (with their inputs and results) in batches. */
export async function expireJobs(store: JobStore, batch: number, maxBatches: number): Promise<number> {
  let total = 0;
  for (let i = 0; i < maxBatches; i++) {
    const deleted = await store.deleteExpired(batch);
    total += deleted;
    if (deleted < batch) break;
  }
  return total;
}

export const MAINTENANCE_TASKS = ['reconcile', 'expire'] as const;
export type MaintenanceTask = (typeof MAINTENANCE_TASKS)[number];

/** (Re)creates the maintenance job schedulers; idempotent, so every worker calls it periodically. */
export async function ensureMaintenanceSchedules(
  queue: Queue,
  intervals: Readonly<Record<MaintenanceTask, number>>,
): Promise<void> {
  for (const task of MAINTENANCE_TASKS) {
    await queue.upsertJobScheduler(task, { every: intervals[task] }, { name: task, opts: { removeOnComplete: true, removeOnFail: 100 } });
  }
}
